import DailyValueContract
import Foundation

/// An Observation as a store holds it.
public struct StoredObservation: Sendable, Hashable {
    public var identity: ObservationIdentity
    public var version: Int64
    public var resourceID: String
    /// The Observation JSON as mapped (no `meta.versionId` / `meta.lastUpdated`).
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

    /// The full FHIR resource: the stored JSON with `meta.versionId` and `meta.lastUpdated` set first in `meta`.
    public var resourceWithMeta: String {
        let marker = "\"meta\":{"
        let entries = "\"versionId\":\"\(versionId)\",\"lastUpdated\":\"\(lastUpdated)\""
        guard let range = resource.range(of: marker) else {
            // No meta object yet: open one right after the resource type.
            guard let open = resource.firstIndex(of: "{") else { return resource }
            var out = resource
            out.insert(contentsOf: "\"meta\":{\(entries)},", at: out.index(after: open))
            return out
        }
        var out = resource
        let isEmpty = resource[range.upperBound...].first == "}"
        out.insert(contentsOf: isEmpty ? entries : entries + ",", at: range.upperBound)
        return out
    }
}
