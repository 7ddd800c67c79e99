#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A ``DailyValue`` that passed validation, with what validation decided resolved into types: the version the
/// upsert is guarded by, the local day as a ``CivilDate`` and the zone as ``ZoneRules`` or a fixed offset. Nothing
/// downstream parses the day or the zone again or works out the version again.
///
/// Made by ``DailyValueDecoder/validate(_:recordTimestampMs:)`` for an event from Kafka, or by
/// ``init(validating:catalog:recordTimestampMs:)`` for a value built in code.
public struct ValidatedDailyValue: Sendable, Hashable {
    /// The zone the local day is anchored in, resolved.
    public enum Zone: Sendable, Hashable {
        /// An IANA time zone of the tz database (DST days are 23 or 25 hours).
        case named(ZoneRules)
        /// A fixed offset in seconds east of UTC (a whole number of minutes within ±14:00).
        case fixed(offsetSeconds: Int)
    }

    /// The event as received (its `day` and zone text are kept for the identity and for writing it out again).
    public let event: DailyValue
    /// The version the upsert is guarded by: the event's, else the Kafka record timestamp.
    public let version: Int64
    /// The person's local calendar day.
    public let date: CivilDate
    public let zone: Zone
    /// The `source` fields left out of ``event`` because they exceed their stored cap (e.g. `source.bundleId`,
    /// see ``ValidationPolicy/maxBundleIdBytes``); the event is valid without them.
    public let omittedSourceFields: [String]

    /// Assembles the parts the decoder has already checked.
    init(event: DailyValue, version: Int64, date: CivilDate, zone: Zone, omittedSourceFields: [String] = []) {
        self.event = event
        self.version = version
        self.date = date
        self.zone = zone
        self.omittedSourceFields = omittedSourceFields
    }

    /// Validates a value built in code (not decoded): its metric is a key of `catalog`, its numbers are finite, its
    /// day is a real date and its zone a tz database name or an offset within ±14:00.
    /// - Parameter recordTimestampMs: the version when the value has none.
    /// - Throws: ``DailyValueError`` naming the field and the rule.
    public init(
        validating value: DailyValue, catalog: MetricCatalog, recordTimestampMs: Int64
    ) throws(DailyValueError) {
        guard let metric = catalog[value.metric] else {
            throw DailyValueError(.unknownMetric, field: "metric", "must be a key of the metric catalog")
        }
        let numbers = [value.value, value.min, value.max] + value.components.flatMap { [$0.value, $0.min, $0.max] }
        guard numbers.allSatisfy({ $0?.isFinite ?? true }) else {
            throw DailyValueError(.invalidNumber, field: "value", "value, min and max must be finite")
        }
        guard
            metric.isPanel
                ? value.value == nil && value.components.map(\.key) == metric.components.map(\.key)
                : value.value != nil && value.components.isEmpty
        else {
            throw DailyValueError(
                .missingField, field: metric.isPanel ? "systolic" : "value",
                "a panel metric needs exactly its components, any other metric a value")
        }
        var day = value.day
        guard let date = day.withUTF8({ CivilDate(iso: UnsafeRawBufferPointer($0)) }) else {
            throw DailyValueError(.invalidDay, field: "day", "must be a real calendar date YYYY-MM-DD")
        }
        let zone: Zone
        switch value.zone {
        case .timeZone(let name):
            guard let resolved = TimeZoneCache.shared.zone(named: name) else {
                throw DailyValueError(.invalidTimeZone, field: "timeZone", "must be an IANA time zone name")
            }
            zone = .named(resolved)
        case .utcOffset(let seconds):
            guard abs(seconds) <= 14 * 3600, seconds % 60 == 0 else {
                throw DailyValueError(.invalidUTCOffset, field: "utcOffset", "must be ±HH:MM within ±14:00")
            }
            zone = .fixed(offsetSeconds: seconds)
        }
        self.init(event: value, version: value.version ?? recordTimestampMs, date: date, zone: zone)
    }

    /// The `(patient, metric, day)` identity this event upserts.
    public var identity: ObservationIdentity { event.identity }
}
