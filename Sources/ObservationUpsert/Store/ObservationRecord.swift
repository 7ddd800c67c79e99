import DailyValueContract

/// One mapped Observation ready for a version-guarded upsert.
///
/// The resource comes in two parts around the place where the store writes `meta.versionId` and
/// `meta.lastUpdated`, which only the store can decide: the stored resource is
/// `resourceHead` + `"versionId":"…","lastUpdated":"…",` + `resourceTail` (see ``StoredResourceSQL``), built once,
/// by plain concatenation inside the statement that decides both, with no JSON re-parsing or editing.
public struct ObservationRecord: Sendable, Hashable {
    /// The `(patient, metric, day)` identity the upsert is keyed by.
    public var identity: ObservationIdentity
    /// The event version; a higher version replaces a lower one, equal is a no-op, lower is stale.
    public var version: Int64
    /// The deterministic FHIR `id` (a keyed hash of the identity; no patient data in clear).
    public var resourceID: String
    /// The Observation JSON up to and including the `{` that opens `meta`, e.g.
    /// `{"resourceType":"Observation","id":"…","meta":{`.
    public var resourceHead: String
    /// The rest of the Observation JSON: `meta`'s own members (at least one, e.g. `"source":"…"`), the `}` closing
    /// `meta`, and every element after it.
    public var resourceTail: String

    public init(
        identity: ObservationIdentity, version: Int64, resourceID: String, resourceHead: String,
        resourceTail: String
    ) {
        self.identity = identity
        self.version = version
        self.resourceID = resourceID
        self.resourceHead = resourceHead
        self.resourceTail = resourceTail
    }

    /// The Observation as mapped, without `meta.versionId` / `meta.lastUpdated` (a valid FHIR resource itself).
    public var resource: String { resourceHead + resourceTail }
}
