import DailyValueContract
@testable import ObservationMapping
import ObservationStores
@testable import PostgresStore
@testable import SQLiteStore
@testable import StoreCore
import Testing

/// Schema migration 6 on both stores (docs/LIFECYCLE.md): a version-5 database with a ledger entry gains the ledger's
/// `version_id` (NULL for that entry) and the partial index `observation_preliminary` that finalize reads through.
enum VersionSixMigration {
    static let day = record(version: 7, status: .final)

    /// Creates a version-5 database at `location` holding one retraction (version 5) of ``day``.
    static func seedVersionFive(_ location: StoreLocation) async throws {
        let isSQLite = if case .sqlite = location { true } else { false }
        let steps = (isSQLite ? SQLiteSchema.migrations : PostgresSchema.migrations).prefix(5)
        let recordedAt = isSQLite ? ", recorded_at" : ""
        try await TestStores.rawExecute(
            location,
            steps.joined(separator: "\n") + """

                CREATE TABLE schema_version (version integer PRIMARY KEY, applied_at text NOT NULL DEFAULT '');
                INSERT INTO schema_version (version) VALUES (1), (2), (3), (4), (5);
                INSERT INTO retraction (patient, metric, day, version, reason\(recordedAt))
                    VALUES ('p-1', 'heart_rate', '2026-10-01', 5, 'wrong sample'\(isSQLite ? ", ''" : ""));
                """)
    }

    /// Opens the seeded database (delete mode): migrated through 6 to the latest, the entry kept without a versionId (a re-stored day
    /// starts at 1, then continues across a delete), the index in place and finalize working through it.
    static func check(_ location: StoreLocation) async throws {
        let store = try await makeObservationStore(location, retractions: .delete)
        let maintenance = try #require(store as? any SQLStore)
        #expect(
            try await maintenance.schemaVersion()
                == (store is SQLiteObservationStore ? StoreKind.sqlite : .postgres).schemaVersion)
        let ledger = "SELECT version || ' ' || coalesce(version_id, 0) FROM retraction"
        #expect(try await TestStores.rawText(location, ledger) == "5 0")
        let index = try #require(
            try await TestStores.rawText(
                location,
                store is SQLiteObservationStore
                    ? "SELECT sql FROM sqlite_master WHERE name = 'observation_preliminary'"
                    : "SELECT indexdef FROM pg_indexes WHERE indexname = 'observation_preliminary'"))
        #expect(index.contains("(day, patient, metric)") && index.contains("preliminary"), "\(index)")

        #expect(try await store.upsert([day]) == [.inserted])
        #expect(try await store.observation(for: day.identity)?.versionId == 1)
        func retraction(_ version: Int64) -> ObservationRecord {
            .retraction(identity: day.identity, version: version, resourceID: day.resourceID, reason: "wrong sample")
        }
        #expect(try await store.upsert([retraction(8)]) == [.retracted])
        #expect(try await TestStores.rawText(location, ledger) == "8 1")
        #expect(try await store.upsert([record(version: 9, status: .final)]) == [.inserted])
        #expect(try await store.observation(for: day.identity)?.versionId == 2)
        #expect(try await store.upsert([record(version: 10, status: .final)]) == [.updated])
        #expect(try await store.upsert([retraction(11)]) == [.retracted])
        #expect(try await TestStores.rawText(location, ledger) == "11 3")

        let settled = try FinalizeTests.steps("2026-10-01", version: 5, .preliminary)
        _ = try await store.upsert([settled])
        #expect(try await maintenance.finalize(settledBefore: Fixtures.ms("2026-10-02T12:00:00Z") / 1000) == 1)
        await store.close()
    }
}
