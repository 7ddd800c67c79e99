extension FHIRDateTime {
    /// Seconds since the epoch of `YYYY-MM-DDThh:mm:ss` with an optional fraction and `Z` or `±hh:mm` (what
    /// ``format(epochSeconds:offsetSeconds:into:)`` and ``instant(epochMilliseconds:into:)`` write; fractions are
    /// dropped); nil for any other text.
    package static func epochSeconds(_ text: String) -> Int64? {
        let b = Array(text.utf8)
        func digits(_ at: Int, _ count: Int) -> Int? {
            guard at + count <= b.count else { return nil }
            var value = 0
            for byte in b[at..<at + count] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        guard b.count >= 20, b[4] == 0x2D, b[7] == 0x2D, b[10] == 0x54, b[13] == 0x3A, b[16] == 0x3A,
            let year = digits(0, 4), let month = digits(5, 2), let day = digits(8, 2), let hour = digits(11, 2),
            let minute = digits(14, 2), let second = digits(17, 2), (1...12).contains(month), (1...31).contains(day),
            hour < 24, minute < 60, second < 61
        else { return nil }
        var at = 19
        if b[at] == 0x2E {
            at += 1
            while at < b.count, (0x30...0x39).contains(b[at]) { at += 1 }
        }
        var offset = 0
        if at == b.count - 1, b[at] == 0x5A {
            offset = 0
        } else if at == b.count - 6, b[at] == 0x2B || b[at] == 0x2D, b[at + 3] == 0x3A,
            let hours = digits(at + 1, 2), let minutes = digits(at + 4, 2)
        {
            offset = (b[at] == 0x2D ? -1 : 1) * (hours * 3600 + minutes * 60)
        } else {
            return nil
        }
        // Days from 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Int64(days * 86_400 + hour * 3600 + minute * 60 + second - offset)
    }
}
