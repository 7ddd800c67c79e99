import DailyValueContract

/// Renders FHIR `dateTime` / `instant` text without Foundation formatters, into a caller's buffer of at least
/// ``maxCount`` bytes (ASCII digits and punctuation only: nothing a JSON string needs escaped).
package enum FHIRDateTime {
    /// The longest text either function writes.
    package static let maxCount = 25

    /// Writes `YYYY-MM-DDThh:mm:ss±hh:mm` for an instant shown at a fixed UTC offset (seconds east; `+00:00` for
    /// UTC) and returns its length.
    package static func format(epochSeconds: Int64, offsetSeconds: Int, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var out = Cursor(buffer)
        out.local(epochSeconds + Int64(offsetSeconds))
        out.put(offsetSeconds < 0 ? 0x2D : 0x2B)
        let minutes = abs(offsetSeconds) / 60
        out.two(minutes / 60)
        out.put(0x3A)
        out.two(minutes % 60)
        return out.count
    }

    /// The instants a FHIR `instant` can express (years 0001–9999), in milliseconds since the epoch.
    package static let instantRange: ClosedRange<Int64> = -62_135_596_800_000...253_402_300_799_999

    /// Writes `YYYY-MM-DDThh:mm:ss.sssZ`, a UTC instant with milliseconds, and returns its length.
    ///
    /// Total over `Int64`: a Kafka record timestamp can be any value a producer chose, so instants outside
    /// ``instantRange`` are clamped to its nearest end rather than trapping or printing a malformed year.
    package static func instant(epochMilliseconds: Int64, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        let ms = min(max(epochMilliseconds, instantRange.lowerBound), instantRange.upperBound)
        let seconds = ms >= 0 ? ms / 1000 : (ms - 999) / 1000
        let millis = Int(ms - seconds * 1000)
        var out = Cursor(buffer)
        out.local(seconds)
        out.put(0x2E)
        out.two(millis / 10)
        out.put(UInt8(0x30 + millis % 10))
        out.put(0x5A)
        return out.count
    }

    /// Sequential writes into the caller's buffer.
    private struct Cursor {
        package let buffer: UnsafeMutableBufferPointer<UInt8>
        package var count = 0

        package init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
            precondition(buffer.count >= FHIRDateTime.maxCount, "FHIRDateTime needs \(FHIRDateTime.maxCount) bytes")
            self.buffer = buffer
        }

        package mutating func put(_ byte: UInt8) {
            buffer[count] = byte
            count += 1
        }

        /// Two decimal digits of `value` (its last two).
        package mutating func two(_ value: Int) {
            put(UInt8(0x30 + value / 10 % 10))
            put(UInt8(0x30 + value % 10))
        }

        /// `YYYY-MM-DDThh:mm:ss` of local seconds since the epoch.
        package mutating func local(_ local: Int64) {
            let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
            let secondOfDay = Int(local - days * 86_400)
            let date = CivilDate(daysSinceEpoch: Int(days))
            two(date.year / 100)
            two(date.year % 100)
            put(0x2D)
            two(date.month)
            put(0x2D)
            two(date.day)
            put(0x54)
            two(secondOfDay / 3600)
            put(0x3A)
            two(secondOfDay / 60 % 60)
            put(0x3A)
            two(secondOfDay % 60)
        }
    }
}
