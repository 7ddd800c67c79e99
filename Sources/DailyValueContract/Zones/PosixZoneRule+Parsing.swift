extension PosixZoneRule {
    /// Parses a TZif footer's `TZ` string; `nil` when it is empty or not of the form RFC 8536 §3.3 allows.
    init?(_ text: Substring) {
        var reader = Reader(bytes: Array(text.utf8))
        guard reader.skipName(), let standard = reader.offset() else { return nil }
        if reader.isAtEnd {
            self.init(standardOffset: -standard, daylight: nil)
            return
        }
        guard reader.skipName() else { return nil }
        var daylightOffset = -standard + 3600
        if reader.peek != UInt8(ascii: ",") {
            guard let offset = reader.offset() else { return nil }
            daylightOffset = -offset
        }
        guard reader.take(","), let start = reader.dateRule(), reader.take(","), let end = reader.dateRule(),
            reader.isAtEnd
        else { return nil }
        self.init(
            standardOffset: -standard, daylight: Daylight(offset: daylightOffset, start: start, end: end))
    }

    /// A cursor over the `TZ` string's bytes.
    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        var isAtEnd: Bool { index == bytes.count }
        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func take(_ character: Unicode.Scalar) -> Bool {
            guard peek == UInt8(character.value) else { return false }
            index += 1
            return true
        }

        /// A zone abbreviation: three or more letters, or `<…>` around letters, digits, `+` and `-`.
        mutating func skipName() -> Bool {
            let start = index
            if take("<") {
                while let byte = peek, byte != UInt8(ascii: ">") { index += 1 }
                return take(">") && index - start >= 5
            }
            while let byte = peek, (byte | 0x20) >= UInt8(ascii: "a"), (byte | 0x20) <= UInt8(ascii: "z") { index += 1 }
            return index - start >= 3
        }

        /// `[+-]hh[:mm[:ss]]` in seconds, hours up to 167.
        mutating func offset() -> Int? {
            var sign = 1
            if take("-") { sign = -1 } else { _ = take("+") }
            guard let hours = number(), hours <= 167 else { return nil }
            var seconds = hours * 3600
            if take(":") {
                guard let minutes = number(), minutes < 60 else { return nil }
                seconds += minutes * 60
                if take(":") {
                    guard let secs = number(), secs < 60 else { return nil }
                    seconds += secs
                }
            }
            return sign * seconds
        }

        /// `Mm.w.d`, `Jn` or `n`, then an optional `/time`.
        mutating func dateRule() -> DateRule? {
            let day: DateRule.Day
            if take("M") {
                guard let month = number(), (1...12).contains(month), take("."), let week = number(),
                    (1...5).contains(week), take("."), let weekday = number(), (0...6).contains(weekday)
                else { return nil }
                day = .monthWeekDay(month: month, week: week, weekday: weekday)
            } else if take("J") {
                guard let n = number(), (1...365).contains(n) else { return nil }
                day = .julian(n)
            } else {
                guard let n = number(), (0...365).contains(n) else { return nil }
                day = .zeroBased(n)
            }
            var time = 7200
            if take("/") {
                guard let given = offset() else { return nil }
                time = given
            }
            return DateRule(day: day, time: time)
        }

        /// Up to three decimal digits.
        mutating func number() -> Int? {
            var value = 0
            var count = 0
            while let byte = peek, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), count < 3 {
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                index += 1
                count += 1
            }
            return count > 0 ? value : nil
        }
    }
}
