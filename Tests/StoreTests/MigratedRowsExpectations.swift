import DailyValueContract
import ObservationMapping
import StoreCore
import Testing

/// What both stores' migration tests expect of the two rows they seed at schema version 2 — `p-1/steps/2026-10-01`
/// (version 7, versionId 3, a resource with `meta.source`) and `p-1/steps/2026-10-02` (versionId 1, no `meta`) —
/// once the stored resources carry their meta: each row kept, its versionId and lastUpdated inside its resource,
/// and a later replace written with the store's new meta.
enum MigratedRowsExpectations {
    static let withMeta = ObservationIdentity(patient: "p-1", metric: "steps", day: "2026-10-01")
    static let bare = ObservationIdentity(patient: "p-1", metric: "steps", day: "2026-10-02")

    /// Checks the migrated rows in `store`, then replaces the first one and checks its new meta.
    static func check(_ store: any ObservationStore) async throws {
        let row = try #require(try await store.observation(for: withMeta))
        #expect(row.version == 7 && row.versionId == 3 && row.lastUpdated == "2026-10-02T06:15:03.120Z")
        #expect(
            try sameJSON(
                row.resource, #"{"resourceType":"Observation","id":"abc","meta":{"source":"s"}}"#, versionId: 3,
                lastUpdated: "2026-10-02T06:15:03.120Z"))
        let bareRow = try #require(try await store.observation(for: bare))
        #expect(
            try sameJSON(
                bareRow.resource, #"{"resourceType":"Observation","id":"def"}"#, versionId: 1,
                lastUpdated: "2026-10-03T06:15:03.000Z"))

        // A replace of the migrated row is written with the store's new meta.
        let record = ObservationRecord(
            identity: withMeta, version: 8, resourceID: "abc",
            resourceHead: #"{"resourceType":"Observation","id":"abc","meta":{"#, resourceTail: #""source":"s"}}"#)
        #expect(try await store.upsert([record]) == [.updated])
        let replaced = try #require(try await store.observation(for: withMeta))
        #expect(replaced.versionId == 4)
        #expect(
            try sameJSON(
                replaced.resource, #"{"resourceType":"Observation","id":"abc","meta":{"source":"s"}}"#, versionId: 4,
                lastUpdated: replaced.lastUpdated))
    }
}
