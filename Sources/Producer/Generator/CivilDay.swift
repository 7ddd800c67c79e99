import DailyValueContract

/// A proleptic Gregorian calendar date, counted as days since 1970-01-01, with exact `YYYY-MM-DD` parsing.
///
/// Its calendar arithmetic is the contract's ``CivilDate`` (Hinnant's algorithms), so the generator needs no
/// calendar or time zone database and gives identical output everywhere.
public struct CivilDay: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Days since 1970-01-01.
    public var daysSinceEpoch: Int

    public init(daysSinceEpoch: Int) {
        self.daysSinceEpoch = daysSinceEpoch
    }

    /// Parses a strict `YYYY-MM-DD` date; `nil` for any other shape or an impossible date (e.g. `2026-02-30`).
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var result = 0
            for byte in bytes[range] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                result = result * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return result
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            (1...12).contains(month), day >= 1, day <= Self.daysIn(month: month, year: year)
        else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// The date `year-month-day` (no range check).
    public init(year: Int, month: Int, day: Int) {
        daysSinceEpoch = CivilDate(year: year, month: month, day: day).daysSinceEpoch
    }

    /// `(year, month, day)` of this date.
    public var components: (year: Int, month: Int, day: Int) {
        let date = CivilDate(daysSinceEpoch: daysSinceEpoch)
        return (date.year, date.month, date.day)
    }

    /// `YYYY-MM-DD`.
    public var description: String {
        let (year, month, day) = components
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    }

    /// Milliseconds since the epoch at this date's 00:00 UTC.
    public var utcMidnightMilliseconds: Int64 { Int64(daysSinceEpoch) * 86_400_000 }

    public func adding(days: Int) -> CivilDay { CivilDay(daysSinceEpoch: daysSinceEpoch + days) }

    public static func < (lhs: CivilDay, rhs: CivilDay) -> Bool { lhs.daysSinceEpoch < rhs.daysSinceEpoch }

    // MARK: - Helpers

    static func daysIn(month: Int, year: Int) -> Int { CivilDate.daysInMonth(year: year, month: month) }

    private func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
