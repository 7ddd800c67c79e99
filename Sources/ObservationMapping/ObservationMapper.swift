import DailyValueContract
import JSON

/// Maps validated DailyValues to FHIR R4 Observation JSON (see `shared/reference/fhir-terminology.md` §2).
///
/// Deterministic: the same value and record timestamp always give the same bytes. Metric-dependent parts are
/// rendered once at init; local-day boundaries are cached per zone and day; nothing uses Foundation formatters.
public struct ObservationMapper: Sendable {
    public let configuration: Configuration
    public let catalog: MetricCatalog
    private let ids: ObservationID
    private let fragments: [String: MetricFragments]
    let constants: ConfiguredFragments
    private let zones: TimeZoneCache
    /// 9999-12-31T23:59:59.999Z.
    private static let maxInstantMs: Int64 = 253_402_300_799_999

    /// - Throws: ``ConfigurationError`` when a setting is invalid.
    public init(configuration: Configuration, catalog: MetricCatalog = .builtin) throws(ConfigurationError) {
        try configuration.validate()
        self.configuration = configuration
        self.catalog = catalog
        self.ids = try ObservationID(key: configuration.idKey)
        self.fragments = catalog.metrics.mapValues {
            MetricFragments($0, statisticsSystem: configuration.statisticsCodeSystem)
        }
        self.constants = ConfiguredFragments(configuration)
        self.zones = .shared
    }

    /// The Observation for one DailyValue built in code: validates it first (see
    /// ``ValidatedDailyValue/init(validating:catalog:recordTimestampMs:)``), then maps it.
    /// - Parameters:
    ///   - value: a value to validate and map.
    ///   - recordTimestampMs: the Kafka record timestamp: `issued`, the `status` decision, and the version when
    ///     the value has none.
    /// - Throws: ``DailyValueError`` when `value` breaks a contract rule (unknown metric, malformed day or zone).
    public func map(_ value: DailyValue, recordTimestampMs: Int64) throws(DailyValueError) -> ObservationRecord {
        try map(
            ValidatedDailyValue(validating: value, catalog: catalog, recordTimestampMs: recordTimestampMs),
            recordTimestampMs: recordTimestampMs)
    }

    /// The Observation for one validated DailyValue.
    /// - Parameters:
    ///   - validated: a value from ``DailyValueDecoder/validate(_:recordTimestampMs:)``.
    ///   - recordTimestampMs: the Kafka record timestamp: `issued` (left out when not positive: no real instant)
    ///     and the `status` decision.
    /// - Throws: ``DailyValueError`` when the value's metric is not in this mapper's catalog.
    public func map(_ validated: ValidatedDailyValue, recordTimestampMs: Int64) throws(DailyValueError)
        -> ObservationRecord
    {
        let value = validated.event
        guard let parts = fragments[value.metric], let metric = catalog.metrics[value.metric] else {
            throw DailyValueError(.unknownMetric, field: "metric", "must be a key of the metric catalog")
        }
        let period = zones.bounds(of: validated.date, in: validated.zone)
        // `issued` is written only for a real instant: a record without a timestamp (librdkafka's -1, or 0) has
        // none (docs/CLINICAL.md); a far-future one is clamped to year 9999.
        let hasIssued = recordTimestampMs > 0
        let issuedMs = hasIssued ? Swift.min(recordTimestampMs, Self.maxInstantMs) : 0
        let identity = value.identity
        let resourceID = ids.id(for: identity)
        // The event's status; absent: final once the record timestamp is past the local day's end plus the grace.
        let status: ObservationStatus =
            switch value.status {
            case .preliminary?: .preliminary
            case .final?: .final
            case nil: issuedMs / 1000 >= period.end + configuration.finalGraceSeconds ? .final : .preliminary
            }

        // Offsets of the parts the store fills in (see ObservationRecord).
        var storeMembersAt = 0, statusAt = 0, afterStatusAt = 0, valueAt = 0
        let bytes = JSONWriter.bytes(capacity: parts.resourceCapacity) { w in
            w.raw(constants.resourceOpening, leavesOpen: true)
            w.value(resourceID)
            w.key("meta")
            w.beginObject()
            // The store writes `versionId` and `lastUpdated` here, in FHIR's element order.
            storeMembersAt = w.count
            w.raw(constants.metaSource, leavesOpen: false)
            w.endObject()
            writeProvenance(value.source, &w)
            w.raw(constants.identifierOpening, leavesOpen: true)
            w.value(path: identity.patient, identity.metric, identity.day)  // the identity's key
            w.endObject()
            w.endArray()
            w.key("status")
            // The store writes the status here (as mapped, or `amended`).
            statusAt = w.count
            w.value(status.rawValue)
            afterStatusAt = w.count
            w.raw(parts.categoryAndCode, leavesOpen: false)
            w.key("subject")
            writeSubject(value.patient, &w)
            w.key("effectivePeriod")
            w.beginObject()
            w.key("start")
            w.value(unescapedUpTo: FHIRDateTime.maxCount) {
                FHIRDateTime.format(epochSeconds: period.start, offsetSeconds: period.startOffset, into: $0)
            }
            w.key("end")
            w.value(unescapedUpTo: FHIRDateTime.maxCount) {
                FHIRDateTime.format(epochSeconds: period.end, offsetSeconds: period.endOffset, into: $0)
            }
            w.endObject()
            if hasIssued {
                w.key("issued")
                w.value(unescapedUpTo: FHIRDateTime.maxCount) {
                    FHIRDateTime.instant(epochMilliseconds: issuedMs, into: $0)
                }
            }
            if let method = parts.method { w.raw(method, leavesOpen: false) }
            valueAt = w.count
            writeClinicalValue(value, parts, &w)
            w.endObject()
        }
        parts.noteResource(bytes: bytes.count)
        // The record keeps the writer's bytes; its parts are ranges of them (no copies).
        return ObservationRecord(
            identity: identity, version: validated.version, resourceID: resourceID, utf8: bytes,
            head: 0..<storeMembersAt, tail: storeMembersAt..<statusAt, status: status,
            afterStatus: afterStatusAt..<bytes.count, clinicalValue: valueAt..<bytes.count - 1,
            facts: ObservationFacts(value, metric: metric, periodStart: period.start, periodEnd: period.end))
    }

    /// The bytes ``map(_:recordTimestampMs:)-(ValidatedDailyValue,_)`` writes as the record's
    /// ``ObservationRecord/clinicalValue``, without the rest of the resource: the worker's version cache compares a
    /// value of a version it knows by them before paying for the whole mapping (docs/CLINICAL.md).
    package func clinicalValueUTF8(of validated: ValidatedDailyValue) -> [UInt8]? {
        let value = validated.event
        guard let parts = fragments[value.metric] else { return nil }
        var start = 0
        let bytes = JSONWriter.bytes(capacity: 256) { w in
            w.beginObject()
            w.endObject()  // as after the element before the value in the resource: the value's key takes a comma
            start = w.count
            writeClinicalValue(value, parts, &w)
        }
        return Array(bytes[start...])
    }

    /// `valueQuantity` and `component`: the record's clinical value.
    private func writeClinicalValue(_ value: DailyValue, _ parts: MetricFragments, _ w: inout JSONWriter) {
        if let number = value.value {
            w.key("valueQuantity")
            writeQuantity(number, parts, &w)
        }
        writeComponents(value, parts, &w)
    }

    /// The store record of a retraction (docs/LIFECYCLE.md): the day's identity and resource id, no resource.
    public func map(_ retraction: DailyValueRetraction) -> ObservationRecord {
        .retraction(
            identity: retraction.identity, version: retraction.version, resourceID: ids.id(for: retraction.identity),
            reason: retraction.reason)
    }

    // MARK: - Pieces

    /// `subject`: `{"reference":"Patient/{id}"}`, or the logical `{"identifier":{"system","value"}}`.
    private func writeSubject(_ patient: String, _ w: inout JSONWriter) {
        w.beginObject()
        switch configuration.subject {
        case .literal: w.member("reference", "Patient/" + patient)
        case .logical(let system):
            w.key("identifier")
            w.beginObject()
            w.member("system", system)
            w.member("value", patient)
            w.endObject()
        }
        w.endObject()
    }

    /// A panel's parts (each with its min/max), or a single-quantity metric's min/max.
    private func writeComponents(
        _ value: DailyValue, _ parts: MetricFragments, _ w: inout JSONWriter
    ) {
        let hasOwnRange = parts.allowsMinMax && (value.min != nil || value.max != nil)
        guard hasOwnRange || !value.components.isEmpty else { return }
        w.key("component")
        w.beginArray()
        if hasOwnRange {
            if let min = value.min { writeComponent(min, code: parts.own.minimumCode, parts, &w) }
            if let max = value.max { writeComponent(max, code: parts.own.maximumCode, parts, &w) }
        }
        // The profile's components first (systolic, diastolic), then the day's ranges.
        let pairs = zip(value.components, parts.parts)
        for (reading, part) in pairs { writeComponent(reading.value, code: part.code, parts, &w) }
        for (reading, part) in pairs {
            if let min = reading.min { writeComponent(min, code: part.minimumCode, parts, &w) }
            if let max = reading.max { writeComponent(max, code: part.maximumCode, parts, &w) }
        }
        w.endArray()
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
}
