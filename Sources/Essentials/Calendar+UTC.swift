#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Calendar {
    /// The Gregorian calendar in UTC: the calendar of stored days' arithmetic (partition months, retention horizons).
    package static var utcGregorian: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt  // TimeZone(identifier: "UTC") needs ICU: nil without Foundation
        return calendar
    }
}
