import DailyValueContract

/// HTTP dates (RFC 9110 §5.6.7's IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`), as a `Retry-After` may carry: read
/// without Foundation's `DateFormatter` (which brings ICU into every binary).
enum HTTPDate {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Seconds since 1970 of an IMF-fixdate; nil for any other text (the obsolete forms are not accepted).
    static func secondsSince1970(_ text: String) -> Int64? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[0].count == 4, parts[0].last == ",", parts[5] == "GMT",
            let day = Int(parts[1]), parts[1].count == 2, let monthIndex = months.firstIndex(of: String(parts[2])),
            let year = Int(parts[3]), parts[3].count == 4
        else { return nil }
        let clock = parts[4].split(separator: ":", omittingEmptySubsequences: false).compactMap { Int($0) }
        guard clock.count == 3, parts[4].count == 8, clock[0] < 24, clock[1] < 60, clock[2] < 61,
            (1...CivilDate.daysInMonth(year: year, month: monthIndex + 1)).contains(day)
        else { return nil }
        let days = CivilDate(year: year, month: monthIndex + 1, day: day).daysSinceEpoch
        return Int64(days) * 86_400 + Int64(clock[0] * 3600 + clock[1] * 60 + clock[2])
    }
}
