import Foundation

extension Calendar {
    /// The Gregorian calendar in UTC: the calendar of stored days' arithmetic (partition months, retention horizons).
    package static var utcGregorian: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }
}
