import DailyValueContract

/// One mapped Observation ready for a version-guarded upsert.
public struct ObservationRecord: Sendable, Hashable {
    /// The `(patient, metric, day)` identity the upsert is keyed by.
    public var identity: ObservationIdentity
    /// The event version; a higher version replaces a lower one, equal is a no-op, lower is stale.
    public var version: Int64
    /// The deterministic FHIR `id` (a keyed hash of the identity; no patient data in clear).
    public var resourceID: String
    /// The FHIR R4 Observation JSON as mapped, without `meta.versionId` / `meta.lastUpdated`: the store decides
    /// those in its upsert and writes them into the stored resource (see ``StoredObservation/resource``).
    public var resource: String

    public init(identity: ObservationIdentity, version: Int64, resourceID: String, resource: String) {
        self.identity = identity
        self.version = version
        self.resourceID = resourceID
        self.resource = resource
    }
}
