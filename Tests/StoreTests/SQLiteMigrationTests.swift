import Foundation
import SQLiteStore
import TestSupport
import Testing

@Suite("SQLite schema migration")
struct SQLiteMigrationTests {
    @Test("A version-2 database (WITHOUT ROWID table) migrates to the latest version: rows kept, read back with their meta")
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
        #expect(try await store.schemaVersion() == StoreKind.sqlite.schemaVersion)
        try await MigratedRowsExpectations.check(store)
        await store.close()
    }

    @Test("A version-5 database migrates to 6: the ledger's version_id, the preliminary index")
    func migratesFromVersionFive() async throws {
        try await TestStores.withFreshLocation(.sqlite) { location in
            try await VersionSixMigration.seedVersionFive(location)
            try await VersionSixMigration.check(location)
        }
    }
}
