#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// RFC 3339 instants (`2026-10-01T00:00:00Z`, `2026-10-01T02:00:00.250+02:00`) through FoundationEssentials'
/// ISO 8601 style — what `ISO8601DateFormatter` did, without Foundation (which brings ICU into every binary).
package enum RFC3339 {
    private static let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// The instant `text` names, with or without fractional seconds, in UTC (`Z`) or with an offset; nil otherwise.
    package static func parse(_ text: String) -> Date? {
        try? style.parse(text)
    }

    /// `date` in UTC with milliseconds: `2026-12-02T13:04:05.123Z`.
    package static func string(_ date: Date) -> String {
        date.formatted(style)
    }
}
