import DailyValueContract

/// One mapped Observation ready for a version-guarded upsert.
///
/// The resource comes in parts around the places where the store writes what only it can decide: `meta.versionId`
/// and `meta.lastUpdated`, and the status (``ObservationStatus``: as mapped, or `amended`, see docs/LIFECYCLE.md).
/// The stored resource is `resourceHead` + `"versionId":"…","lastUpdated":"…",` + `resourceTail` + `"<status>"` +
/// `resourceAfterStatus` (see ``StoredResourceSQL``), built once, by plain concatenation inside the statement that
/// decides them, with no JSON re-parsing or editing. Without a ``status`` (test fixtures) `resourceTail` is the
/// whole rest.
public struct ObservationRecord: Sendable, Hashable {
    /// The `(patient, metric, day)` identity the upsert is keyed by.
    public var identity: ObservationIdentity {
        get { box.values.identity }
        set { uniqueBox().values.identity = newValue }
    }
    /// The event version; a higher version replaces a lower one, equal is a no-op, lower is stale.
    public var version: Int64 {
        get { box.values.version }
        set { uniqueBox().values.version = newValue }
    }
    /// The deterministic FHIR `id` (a keyed hash of the identity; no patient data in clear).
    public var resourceID: String {
        get { box.values.resourceID }
        set { uniqueBox().values.resourceID = newValue }
    }
    /// The Observation JSON up to and including the `{` that opens `meta`, e.g.
    /// `{"resourceType":"Observation","id":"…","meta":{`.
    public var resourceHead: String { String(decoding: resourceHeadUTF8, as: UTF8.self) }
    /// The rest of the Observation JSON: `meta`'s own members (at least one, e.g. `"source":"…"`), the `}` closing
    /// `meta`, and every element after it up to and including `"status":` (with a ``status``) or to the end.
    public var resourceTail: String { String(decoding: resourceTailUTF8, as: UTF8.self) }
    /// The status as mapped (`preliminary` or `final`); nil when the resource has no status slot.
    public var status: ObservationStatus? {
        get { box.values.status }
        set { uniqueBox().values.status = newValue }
    }
    /// The JSON after the status value, e.g. `,"category":[…],…}`; empty without a status slot.
    public var resourceAfterStatus: String { String(decoding: resourceAfterStatusUTF8, as: UTF8.self) }
    /// The clinical value as canonical JSON (`valueQuantity` and `component`): a stored final value replaced by a
    /// different one becomes `amended`, an equal one does not.
    public var clinicalValue: String { String(decoding: clinicalValueUTF8, as: UTF8.self) }

    /// The typed facts the stores keep in columns (docs/STORAGE.md); nil for a retraction and for records built
    /// from resource text (test fixtures), whose facts are read from it when stored.
    public var facts: ObservationFacts? {
        get { box.values.facts }
        set { uniqueBox().values.facts = newValue }
    }
    /// ``clinicalValue``'s ``ClinicalDigest``: what the stores compare.
    package var clinicalDigest: [UInt8] { box.values.clinicalDigest }

    /// ``resourceHead`` as UTF-8, without a copy (a slice of the mapper's output).
    package var resourceHeadUTF8: ArraySlice<UInt8> { box.values.json.part(0) }
    /// ``resourceTail`` as UTF-8, without a copy.
    package var resourceTailUTF8: ArraySlice<UInt8> { box.values.json.part(1) }
    /// ``resourceAfterStatus`` as UTF-8, without a copy.
    package var resourceAfterStatusUTF8: ArraySlice<UInt8> { box.values.json.part(2) }
    /// ``clinicalValue`` as UTF-8, without a copy.
    package var clinicalValueUTF8: ArraySlice<UInt8> { box.values.json.part(3) }
    /// Set for a retraction (docs/LIFECYCLE.md): the stored day is marked `entered-in-error` or deleted
    /// (``RetractionMode``), and recorded in the ledger (a day never stored only there); the resource parts are empty
    /// and unused.
    public var retractionReason: String? {
        get { box.values.retractionReason }
        set { uniqueBox().values.retractionReason = newValue }
    }

    /// The values, in one copy-on-write box: a record is copied several times on its way to the store (batch
    /// arrays, the plan, retries, the version cache's bookkeeping), and one retain per copy is cheaper than one per
    /// string.
    private struct Values: Hashable, Sendable {
        var identity: ObservationIdentity
        var version: Int64
        var resourceID: String
        var json: JSONParts
        var status: ObservationStatus?
        var retractionReason: String?
        var facts: ObservationFacts?
        var clinicalDigest: [UInt8]
    }

    /// The resource's parts and the clinical value as ranges of one UTF-8 buffer: the mapper writes the
    /// Observation once and hands over its bytes. PostgreSQL binds the ranges as they are; the `String` properties
    /// (SQLite, the FHIR store, tests) decode a new string on each call.
    private struct JSONParts: Hashable, Sendable {
        var bytes: [UInt8]
        /// head, tail, after-status, clinical value.
        var ranges: (Range<Int>, Range<Int>, Range<Int>, Range<Int>)

        func part(_ index: Int) -> ArraySlice<UInt8> {
            switch index {
            case 0: bytes[ranges.0]
            case 1: bytes[ranges.1]
            case 2: bytes[ranges.2]
            default: bytes[ranges.3]
            }
        }

        static func == (lhs: JSONParts, rhs: JSONParts) -> Bool {
            (0..<4).allSatisfy { lhs.part($0).elementsEqual(rhs.part($0)) }
        }

        func hash(into hasher: inout Hasher) {
            for index in 0..<4 {
                let part = part(index)
                hasher.combine(part.count)
                part.withUnsafeBytes { hasher.combine(bytes: $0) }
            }
        }
    }

    /// `@unchecked Sendable`: a box is only mutated through ``uniqueBox()``, i.e. while no other copy (on any
    /// thread) refers to it. Not a generic box shared with the other copy-on-write type: unspecialized across
    /// modules, a generic box's accessors copy the whole struct per field read.
    private final class Box: @unchecked Sendable {
        var values: Values
        init(_ values: Values) { self.values = values }
    }

    private var box: Box

    /// The record's stored document as the store would compress it (docs/STORAGE.md), made ahead by the worker off
    /// the store's serial path; nil: the store compresses it when it writes. Not part of equality: it is the parts'
    /// encoding, not more content.
    package var storedDocument: [UInt8]?

    private mutating func uniqueBox() -> Box {
        if !isKnownUniquelyReferenced(&box) { box = Box(box.values) }
        return box
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.box === rhs.box || lhs.box.values == rhs.box.values
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(box.values) }

    public init(
        identity: ObservationIdentity, version: Int64, resourceID: String, resourceHead: String,
        resourceTail: String, status: ObservationStatus? = nil, resourceAfterStatus: String = "",
        clinicalValue: String = ""
    ) {
        var bytes: [UInt8] = []
        var ranges: [Range<Int>] = []
        for part in [resourceHead, resourceTail, resourceAfterStatus, clinicalValue] {
            let start = bytes.count
            bytes.append(contentsOf: part.utf8)
            ranges.append(start..<bytes.count)
        }
        self.init(
            identity: identity, version: version, resourceID: resourceID, utf8: bytes, head: ranges[0],
            tail: ranges[1], status: status, afterStatus: ranges[2], clinicalValue: ranges[3])
    }

    /// A record whose resource parts and clinical value are ranges of `utf8` (the mapper's output, kept as is).
    package init(
        identity: ObservationIdentity, version: Int64, resourceID: String, utf8: [UInt8], head: Range<Int>,
        tail: Range<Int>, status: ObservationStatus?, afterStatus: Range<Int>, clinicalValue: Range<Int>,
        facts: ObservationFacts? = nil
    ) {
        box = Box(
            Values(
                identity: identity, version: version, resourceID: resourceID,
                json: JSONParts(bytes: utf8, ranges: (head, tail, afterStatus, clinicalValue)), status: status,
                retractionReason: nil, facts: facts, clinicalDigest: ClinicalDigest.of(utf8[clinicalValue])))
    }

    /// A versioned retraction of one day (an explicit event, not a Kafka tombstone), with its reason.
    public static func retraction(
        identity: ObservationIdentity, version: Int64, resourceID: String, reason: String
    ) -> ObservationRecord {
        var record = ObservationRecord(
            identity: identity, version: version, resourceID: resourceID, resourceHead: "", resourceTail: "")
        record.retractionReason = reason
        return record
    }

    /// The Observation as mapped, without `meta.versionId` / `meta.lastUpdated` (a valid FHIR resource itself).
    public var resource: String { resource(status: status) }

    /// The Observation as mapped with `status` in the status slot (ignored without one).
    public func resource(status: ObservationStatus?) -> String {
        var out = Array(resourceHeadUTF8)
        appendResourceBody(status: status, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Everything after the store's `meta` members, with `status` in the status slot (ignored without one).
    public func resourceBody(status: ObservationStatus?) -> String {
        var out: [UInt8] = []
        appendResourceBody(status: status, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// ``resourceBody(status:)`` appended to `out` as UTF-8, from the record's bytes.
    package func appendResourceBody(status: ObservationStatus?, to out: inout [UInt8]) {
        out += resourceTailUTF8
        if self.status != nil, let status {
            out.append(0x22)
            out += status.rawValue.utf8
            out.append(0x22)
        }
        out += resourceAfterStatusUTF8
    }
}
