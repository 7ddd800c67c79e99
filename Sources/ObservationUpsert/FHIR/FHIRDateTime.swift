import DailyValueContract

/// Renders FHIR `dateTime` / `instant` text without Foundation formatters, appended to the caller's bytes (ASCII
/// digits and punctuation only: nothing a JSON string needs escaped).
enum FHIRDateTime {
    /// `YYYY-MM-DDThh:mm:ss±hh:mm` for an instant shown at a fixed UTC offset (seconds east; `+00:00` for UTC).
    static func format(epochSeconds: Int64, offsetSeconds: Int, to out: inout [UInt8]) {
        appendLocal(epochSeconds + Int64(offsetSeconds), to: &out)
        out.append(offsetSeconds < 0 ? 0x2D : 0x2B)
        let minutes = abs(offsetSeconds) / 60
        append2(minutes / 60, &out)
        out.append(0x3A)
        append2(minutes % 60, &out)
    }

    /// The instants a FHIR `instant` can express (years 0001–9999), in milliseconds since the epoch.
    static let instantRange: ClosedRange<Int64> = -62_135_596_800_000...253_402_300_799_999

    /// `YYYY-MM-DDThh:mm:ss.sssZ`: a UTC instant with milliseconds.
    ///
    /// Total over `Int64`: a Kafka record timestamp can be any value a producer chose, so instants outside
    /// ``instantRange`` are clamped to its nearest end rather than trapping or printing a malformed year.
    static func instant(epochMilliseconds: Int64, to out: inout [UInt8]) {
        let ms = min(max(epochMilliseconds, instantRange.lowerBound), instantRange.upperBound)
        let seconds = ms >= 0 ? ms / 1000 : (ms - 999) / 1000
        let millis = Int(ms - seconds * 1000)
        appendLocal(seconds, to: &out)
        out.append(0x2E)
        append2(millis / 10, &out)
        out.append(UInt8(0x30 + millis % 10))
        out.append(0x5A)
    }

    /// `YYYY-MM-DDThh:mm:ss` of local seconds since the epoch.
    private static func appendLocal(_ local: Int64, to out: inout [UInt8]) {
        let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        let secondOfDay = Int(local - days * 86_400)
        let date = CivilDate(daysSinceEpoch: Int(days))
        append2(date.year / 100, &out)
        append2(date.year % 100, &out)
        out.append(0x2D)
        append2(date.month, &out)
        out.append(0x2D)
        append2(date.day, &out)
        out.append(0x54)
        append2(secondOfDay / 3600, &out)
        out.append(0x3A)
        append2(secondOfDay / 60 % 60, &out)
        out.append(0x3A)
        append2(secondOfDay % 60, &out)
    }

    private static func append2(_ value: Int, _ out: inout [UInt8]) {
        out.append(UInt8(0x30 + value / 10 % 10))
        out.append(UInt8(0x30 + value % 10))
    }
}
