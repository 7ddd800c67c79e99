import DailyValueContract

/// Maps validated DailyValues to FHIR R4 Observation JSON (see `shared/reference/fhir-terminology.md` §2).
///
/// Deterministic: the same value and record timestamp always give the same bytes. Metric-dependent parts are
/// rendered once at init; local-day boundaries are cached per zone and day; nothing uses Foundation formatters.
public struct ObservationMapper: Sendable {
    public let configuration: Configuration
    public let catalog: MetricCatalog
    private let ids: ObservationID
    private let fragments: [String: MetricFragments]
    private let zones: TimeZoneCache
    /// 9999-12-31T23:59:59.999Z.
    private static let maxInstantMs: Int64 = 253_402_300_799_999

    /// - Throws: ``ConfigurationError`` when a setting is invalid.
    public init(configuration: Configuration, catalog: MetricCatalog = .builtin) throws(ConfigurationError) {
        try configuration.validate()
        self.configuration = configuration
        self.catalog = catalog
        self.ids = try ObservationID(key: configuration.idKey)
        self.fragments = catalog.metrics.mapValues(MetricFragments.init)
        self.zones = .shared
    }

    /// The Observation for one DailyValue.
    /// - Parameters:
    ///   - value: a value from ``DailyValueDecoder`` (or built and validated the same way).
    ///   - recordTimestampMs: the Kafka record timestamp: `issued`, the `status` decision, and the version when
    ///     the value has none.
    /// - Throws: ``DailyValueError`` when `value` did not come from the decoder and breaks a contract rule
    ///   (unknown metric, malformed day or zone).
    public func map(_ value: DailyValue, recordTimestampMs: Int64) throws(DailyValueError) -> ObservationRecord {
        guard let metric = catalog[value.metric], let parts = fragments[value.metric] else {
            throw DailyValueError(.unknownMetric, field: "metric", "must be a key of the metric catalog")
        }
        guard value.value.isFinite, value.min?.isFinite ?? true, value.max?.isFinite ?? true else {
            throw DailyValueError(.invalidNumber, field: "value", "value, min and max must be finite")
        }
        let period = try localDay(value)
        // `issued` must be a real instant: clamp a missing (-1) or absurd Kafka timestamp into years 1970-9999.
        let issuedMs = Swift.min(Swift.max(recordTimestampMs, 0), Self.maxInstantMs)
        let identity = value.identity
        let resourceID = ids.id(for: identity)
        let subject = "Patient/" + value.patient
        let isFinal = issuedMs / 1000 >= period.end + configuration.finalGraceSeconds

        var w = JSONWriter(capacity: 2048)
        w.beginObject()
        w.member("resourceType", "Observation")
        w.member("id", resourceID)
        w.key("meta")  // keep `"meta":{` first: StoredObservation.resourceWithMeta splices versionId/lastUpdated here
        w.beginObject()
        w.member("source", configuration.metaSource)
        w.endObject()
        let hasDevice = writeProvenance(value.source, &w)
        w.key("identifier")
        w.beginArray()
        w.beginObject()
        w.member("system", configuration.identifierSystem)
        w.member("value", identity.key)
        w.endObject()
        w.endArray()
        w.member("status", isFinal ? "final" : "preliminary")
        w.key("category")
        w.rawValue(parts.category)
        w.key("code")
        w.rawValue(parts.code)
        w.key("subject")
        writeReference(subject, &w)
        w.key("effectivePeriod")
        w.beginObject()
        w.member("start", FHIRDateTime.format(epochSeconds: period.start, offsetSeconds: period.startOffset))
        w.member("end", FHIRDateTime.format(epochSeconds: period.end, offsetSeconds: period.endOffset))
        w.endObject()
        w.member("issued", FHIRDateTime.instant(epochMilliseconds: issuedMs))
        w.key("performer")
        w.beginArray()
        writeReference(subject, &w)
        w.endArray()
        w.key("valueQuantity")
        writeQuantity(value.value, parts, &w)
        if hasDevice {
            w.key("device")
            writeReference("#dev", &w)
        }
        if metric.allowsMinMax, value.min != nil || value.max != nil {
            w.key("component")
            w.beginArray()
            if let min = value.min { writeComponent(min, code: parts.minimumCode, parts, &w) }
            if let max = value.max { writeComponent(max, code: parts.maximumCode, parts, &w) }
            w.endArray()
        }
        w.endObject()
        return ObservationRecord(
            identity: identity, version: value.version ?? recordTimestampMs, resourceID: resourceID, resource: w.string)
    }

    // MARK: - Pieces

    private func writeReference(_ reference: String, _ w: inout JSONWriter) {
        w.beginObject()
        w.member("reference", reference)
        w.endObject()
    }

    private func writeComponent(_ number: Double, code: [UInt8], _ parts: MetricFragments, _ w: inout JSONWriter) {
        w.beginObject()
        w.key("code")
        w.rawValue(code)
        w.key("valueQuantity")
        writeQuantity(number, parts, &w)
        w.endObject()
    }

    private func writeQuantity(_ number: Double, _ parts: MetricFragments, _ w: inout JSONWriter) {
        w.beginObject()
        w.key("value")
        w.value(number)
        w.rawValue(parts.quantityTail)  // `,"unit":…}` closes the object
    }

    /// The local day's bounds: a named zone through the cache, a fixed offset by arithmetic.
    private func localDay(_ value: DailyValue) throws(DailyValueError) -> TimeZoneCache.DayBounds {
        var day = value.day
        guard let date = day.withUTF8({ CivilDate(iso: UnsafeRawBufferPointer($0)) }) else {
            throw DailyValueError(.invalidDay, field: "day", "must be a real calendar date YYYY-MM-DD")
        }
        switch value.zone {
        case .timeZone(let name):
            guard let zone = zones.zone(named: name) else {
                throw DailyValueError(.invalidTimeZone, field: "timeZone", "must be an IANA time zone name")
            }
            return zones.bounds(day: date.daysSinceEpoch, zone: zone)
        case .utcOffset(let seconds):
            guard abs(seconds) <= 14 * 3600, seconds % 60 == 0 else {
                throw DailyValueError(.invalidUTCOffset, field: "utcOffset", "must be ±HH:MM within ±14:00")
            }
            let start = Int64(date.daysSinceEpoch) * 86_400 - Int64(seconds)
            return TimeZoneCache.DayBounds(start: start, startOffset: seconds, end: start + 86_400, endOffset: seconds)
        }
    }
}
