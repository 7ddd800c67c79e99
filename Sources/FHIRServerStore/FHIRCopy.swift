import DailyValueContract
import JSON
import StoreCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The server's copy of one Observation, as far as the FHIR store needs it: the server's version id, the event
/// version on the product's tag, and the identity from the mapper's identifier.
struct FHIRCopy {
    var resourceID: String
    /// `meta.versionId` (numeric on HAPI, Azure and sekmet; opaque on Google).
    var versionId: String
    /// The event version on the ``FHIRStoreConfiguration/versionTagSystem`` tag (the highest when tags were merged);
    /// nil when the copy has none (written by another system, or under another tag system): such a copy is never
    /// overwritten, the record is refused.
    var eventVersion: Int64?
    var identity: ObservationIdentity?
    var lastUpdated: String
    var resource: [String: Any]

    /// Reads a copy from a parsed Observation.
    init?(_ resource: [String: Any], versionTagSystem: String, identifierSystem: String) {
        guard let id = resource["id"] as? String, let meta = resource["meta"] as? [String: Any] else { return nil }
        resourceID = id
        versionId = meta["versionId"] as? String ?? ""
        lastUpdated = meta["lastUpdated"] as? String ?? ""
        // The highest of our tags, not the first: FHIR carries tags forward on update unless told otherwise (HAPI
        // merges them without `X-Meta-Snapshot-Mode: TAG`), so a copy written at 5 and then 7 may carry both.
        let tags = meta["tag"] as? [[String: Any]] ?? []
        eventVersion = tags.filter { $0["system"] as? String == versionTagSystem }
            .compactMap { ($0["code"] as? String).flatMap { Int64($0) } }.max()
        let identifiers = resource["identifier"] as? [[String: Any]] ?? []
        identity = identifiers.first { $0["system"] as? String == identifierSystem }
            .flatMap { $0["value"] as? String }.flatMap(Self.identity(fromKey:))
        self.resource = resource
    }

    /// `{patient}/{metric}/{day}` → the identity (patient ids, metric keys and days hold no `/`).
    static func identity(fromKey key: String) -> ObservationIdentity? {
        let parts = key.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        return ObservationIdentity(patient: String(parts[0]), metric: String(parts[1]), day: String(parts[2]))
    }

    /// The copy as a ``StoredObservation`` with the server's resource as compact JSON with sorted keys (nil without
    /// identity or event version: not one of this product's).
    var stored: StoredObservation? {
        guard let identity, let eventVersion,
            let data = JSONValue(any: resource)?.serialized()
        else { return nil }
        return StoredObservation(
            identity: identity, version: eventVersion, resourceID: resourceID,
            resource: String(decoding: data, as: UTF8.self), versionId: Int64(versionId) ?? 0,
            lastUpdated: lastUpdated)
    }
}
