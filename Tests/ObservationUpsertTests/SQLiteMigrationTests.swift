import Foundation
import ObservationUpsert
import Testing
import TestSupport

@Suite("SQLite schema migration")
struct SQLiteMigrationTests {
    @Test("A version-2 database (WITHOUT ROWID table) migrates to version 4: rows kept, meta in the resource")
    func migratesFromVersionTwo() async throws {
        let directory = try TestEnvironment.temporaryDirectory("dvp-migrate")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("v2.sqlite").path
        let v2 = """
            CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL);
            CREATE TABLE observation (patient TEXT NOT NULL, metric TEXT NOT NULL, day TEXT NOT NULL,
                version INTEGER NOT NULL, resource_id TEXT NOT NULL, resource TEXT NOT NULL,
                version_id INTEGER NOT NULL, last_updated TEXT NOT NULL, PRIMARY KEY (patient, metric, day))
                WITHOUT ROWID;
            CREATE TABLE outcome_count (metric TEXT NOT NULL, outcome TEXT NOT NULL, count INTEGER NOT NULL,
                PRIMARY KEY (metric, outcome)) WITHOUT ROWID;
            CREATE INDEX observation_resource_id ON observation (resource_id);
            INSERT INTO schema_version VALUES (1, '2026-11-01T00:00:00Z'), (2, '2026-11-01T00:00:00Z');
            INSERT INTO observation VALUES ('p-1', 'steps', '2026-10-01', 7, 'abc',
                '{"resourceType":"Observation","id":"abc","meta":{"source":"s"}}', 3, '2026-10-02T06:15:03.120Z'),
                ('p-1', 'steps', '2026-10-02', 2, 'def', '{"resourceType":"Observation","id":"def"}', 1,
                '2026-10-03T06:15:03.000Z');
            """
        let process = try await ChildProcess.run("/usr/bin/sqlite3", [path, v2])
        try #require(process.status == 0)

        let store = try await SQLiteObservationStore(path: path)
        #expect(try await store.schemaVersion() == 4)
        let identity = ObservationIdentity(patient: "p-1", metric: "steps", day: "2026-10-01")
        let row = try #require(try await store.observation(for: identity))
        #expect(row.version == 7 && row.versionId == 3 && row.lastUpdated == "2026-10-02T06:15:03.120Z")
        #expect(
            try sameJSON(
                row.resource, #"{"resourceType":"Observation","id":"abc","meta":{"source":"s"}}"#, versionId: 3,
                lastUpdated: "2026-10-02T06:15:03.120Z"))
        let bare = try #require(
            try await store.observation(for: ObservationIdentity(patient: "p-1", metric: "steps", day: "2026-10-02")))
        #expect(
            try sameJSON(
                bare.resource, #"{"resourceType":"Observation","id":"def"}"#, versionId: 1,
                lastUpdated: "2026-10-03T06:15:03.000Z"))

        // A resource that already carries meta (the migrated one) is written with the store's new meta.
        let record = ObservationRecord(identity: identity, version: 8, resourceID: "abc", resource: row.resource)
        #expect(try await store.upsert([record]) == [.updated])
        let replaced = try #require(try await store.observation(for: identity))
        #expect(replaced.versionId == 4)
        #expect(
            try sameJSON(
                replaced.resource, #"{"resourceType":"Observation","id":"abc","meta":{"source":"s"}}"#, versionId: 4,
                lastUpdated: replaced.lastUpdated))
        await store.close()
    }
}
