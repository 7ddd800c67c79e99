import DailyValueContract

/// An Observation as a store holds it.
public struct StoredObservation: Sendable, Hashable {
    public var identity: ObservationIdentity
    public var version: Int64
    public var resourceID: String
    /// The full FHIR resource as stored: the mapped Observation with `meta.versionId` and `meta.lastUpdated` (equal
    /// to ``versionId`` and ``lastUpdated``), written by the store in the upsert that decided them. Compact JSON from
    /// both stores; PostgreSQL's keys come in `jsonb` order (shorter keys first), SQLite's as mapped.
    public var resource: String
    /// FHIR `meta.versionId`: 1 on insert, grows by one on each real replace.
    public var versionId: Int64
    /// FHIR `meta.lastUpdated`: RFC 3339 UTC instant with milliseconds, e.g. `2026-10-02T06:15:03.120Z`.
    public var lastUpdated: String

    public init(
        identity: ObservationIdentity, version: Int64, resourceID: String, resource: String, versionId: Int64,
        lastUpdated: String
    ) {
        self.identity = identity
        self.version = version
        self.resourceID = resourceID
        self.resource = resource
        self.versionId = versionId
        self.lastUpdated = lastUpdated
    }
}
