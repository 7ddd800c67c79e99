import Foundation
@testable import PostgresStore
import StoreCore
import Testing

@Suite("PostgreSQL schema migration", .timeLimit(.minutes(2)))
struct PostgresMigrationTests {
    @Test("A version-2 database migrates to the latest version: every row kept, its meta in its resource")
    func migratesFromVersionTwo() async throws {
        try await TestStores.withFreshLocation(.postgres) { location in
            let versionTwo = """
                CREATE TABLE schema_version (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());
                INSERT INTO schema_version (version) VALUES (1), (2);
                INSERT INTO observation VALUES
                    ('p-1', 'steps', '2026-10-01', 7, 'abc',
                        '{"resourceType":"Observation","id":"abc","meta":{"source":"s"}}', 3,
                        '2026-10-02T06:15:03.120Z'),
                    ('p-1', 'steps', '2026-10-02', 2, 'def', '{"resourceType":"Observation","id":"def"}', 1,
                        '2026-10-03T06:15:03Z');
                """
            let v2 = (PostgresSchema.migrations.prefix(2) + [versionTwo]).joined(separator: "\n")
            try await TestStores.rawExecute(location, v2)

            let store = try await TestStores.open(location)
            #expect(try await store.schemaVersion() == PostgresSchema.migrations.count)
            try await MigratedRowsExpectations.check(store)
            await store.close()
            // Migration 3: resources compress with lz4 (Debian's PostgreSQL 15 is built with it).
            let method = try await TestStores.rawText(
                location,
                "SELECT attcompression FROM pg_attribute WHERE attrelid = 'observation'::regclass AND attname = 'resource'")
            #expect(method == "l", "column compression \(String(describing: method))")
        }
    }

    @Test("A version-5 database migrates to 6: the ledger's version_id, the preliminary index")
    func migratesFromVersionFive() async throws {
        try await TestStores.withFreshLocation(.postgres) { location in
            try await VersionSixMigration.seedVersionFive(location)
            try await VersionSixMigration.check(location)
        }
    }
}
