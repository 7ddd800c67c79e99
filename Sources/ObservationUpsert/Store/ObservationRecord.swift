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
    public var resourceHead: String {
        get { box.values.resourceHead }
        set { uniqueBox().values.resourceHead = newValue }
    }
    /// The rest of the Observation JSON: `meta`'s own members (at least one, e.g. `"source":"…"`), the `}` closing
    /// `meta`, and every element after it up to and including `"status":` (with a ``status``) or to the end.
    public var resourceTail: String {
        get { box.values.resourceTail }
        set { uniqueBox().values.resourceTail = newValue }
    }
    /// The status as mapped (`preliminary` or `final`); nil when the resource has no status slot.
    public var status: ObservationStatus? {
        get { box.values.status }
        set { uniqueBox().values.status = newValue }
    }
    /// The JSON after the status value, e.g. `,"category":[…],…}`; empty without a status slot.
    public var resourceAfterStatus: String {
        get { box.values.resourceAfterStatus }
        set { uniqueBox().values.resourceAfterStatus = newValue }
    }
    /// The clinical value as canonical JSON (`valueQuantity` and `component`): a stored final value replaced by a
    /// different one becomes `amended`, an equal one does not.
    public var clinicalValue: String {
        get { box.values.clinicalValue }
        set { uniqueBox().values.clinicalValue = newValue }
    }
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
        var resourceHead: String
        var resourceTail: String
        var status: ObservationStatus?
        var resourceAfterStatus: String
        var clinicalValue: String
        var retractionReason: String?
    }

    /// `@unchecked Sendable`: a box is only mutated through ``uniqueBox()``, i.e. while no other record (on any
    /// thread) refers to it.
    private final class Box: @unchecked Sendable {
        var values: Values
        init(_ values: Values) { self.values = values }
    }

    private var box: Box

    private mutating func uniqueBox() -> Box {
        if !isKnownUniquelyReferenced(&box) { box = Box(box.values) }
        return box
    }

    public static func == (lhs: ObservationRecord, rhs: ObservationRecord) -> Bool {
        lhs.box === rhs.box || lhs.box.values == rhs.box.values
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(box.values) }

    public init(
        identity: ObservationIdentity, version: Int64, resourceID: String, resourceHead: String,
        resourceTail: String, status: ObservationStatus? = nil, resourceAfterStatus: String = "",
        clinicalValue: String = ""
    ) {
        box = Box(
            Values(
                identity: identity, version: version, resourceID: resourceID, resourceHead: resourceHead,
                resourceTail: resourceTail, status: status, resourceAfterStatus: resourceAfterStatus,
                clinicalValue: clinicalValue, retractionReason: nil))
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
    public func resource(status: ObservationStatus?) -> String { resourceHead + resourceBody(status: status) }

    /// Everything after the store's `meta` members, with `status` in the status slot (ignored without one).
    public func resourceBody(status: ObservationStatus?) -> String {
        resourceTail + (self.status == nil ? "" : status.map { "\"\($0.rawValue)\"" } ?? "") + resourceAfterStatus
    }
}
