import Essentials
import PostgresClient
import Testing
import TestSupport

@testable import ObservationUpsert

/// The PostgreSQL upsert writes `meta.versionId` and the status into the resource from its statement snapshot. When
/// another writer commits a replace after that snapshot, the row lock makes the upsert wait and `DO UPDATE` then
/// sees the newer row: the resource's versionId and status must follow the row, not the snapshot.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct PostgresVersionIdRaceTests {
    @Test func aReplaceCommittedAfterTheSnapshotStillGivesTheRightVersionId() async throws {
        let raw = try await race(
            first: record(version: 1),
            otherWriter: """
                UPDATE observation SET version = 2, version_id = version_id + 1,
                    resource = jsonb_set(resource, '{meta,versionId}', '"2"')
                WHERE patient = 'p-1' AND metric = 'heart_rate' AND day = '2026-10-01'
                """,
            then: record(version: 3),
            read: "version_id || ' ' || (resource -> 'meta' ->> 'versionId') || ' ' || version")
        #expect(raw == "3 3 3", "version_id, the resource's meta.versionId and version")
    }

    /// The snapshot holds a preliminary day; another writer makes it final before the upsert's row lock is granted,
    /// so a different value must give `amended` (docs/LIFECYCLE.md) — in the column and in the resource.
    @Test func aFinalCommittedAfterTheSnapshotMakesADifferentValueAmended() async throws {
        let raw = try await race(
            first: record(version: 1, value: 60, status: .preliminary),
            otherWriter: """
                UPDATE observation SET version = 2, version_id = version_id + 1, status = 'final',
                    clinical_value = $1, resource = jsonb_set(jsonb_set(resource, '{meta,versionId}', '"2"'),
                        '{status}', '"final"')
                WHERE patient = 'p-1' AND metric = 'heart_rate' AND day = '2026-10-01'
                """,
            parameters: [record(version: 2, value: 60, status: .final).clinicalValue],
            then: record(version: 3, value: 70, status: .final),
            read: "version_id || ' ' || (resource -> 'meta' ->> 'versionId') || ' ' || status || ' ' "
                + "|| (resource ->> 'status')")
        #expect(raw == "3 3 amended amended", "version_id, meta.versionId, the status column and the resource's")
    }

    /// Stores `first`; another connection runs `otherWriter` in a transaction it holds open; the upsert of `then`
    /// must wait for that row lock; the other writer commits, the upsert must be `updated`. Returns `read` (an SQL
    /// expression over the row) read straight from the table.
    private func race(
        first: ObservationRecord, otherWriter: String, parameters: [String] = [], then record: ObservationRecord,
        read: String
    ) async throws -> String? {
        try await TestStores.withFreshLocation(.postgres) { location in
            guard case .postgres(let url) = location else { return nil }
            let store = try await PostgresObservationStore(
                connectionString: url, options: PostgresClientOptions(applicationName: "dvp-versionid-race"))
            #expect(try await store.upsert([first]) == [.inserted])

            let other = QueueConfined(label: "test.other-writer", try PostgresConnection(connectionString: url))
            try await other.run { connection in
                _ = try connection.execute("BEGIN")
                _ = try connection.execute(otherWriter, parameters)
            }
            let upsert = Task { try await store.upsert([record]) }
            let waiting = try await eventually(timeout: .seconds(20), interval: .milliseconds(50)) {
                try await TestStores.rawText(
                    location,
                    """
                    SELECT count(*) FROM pg_stat_activity
                    WHERE application_name = 'dvp-versionid-race' AND wait_event_type = 'Lock'
                    """) == "1"
            }
            #expect(waiting, "the upsert never waited for the other writer's row lock")
            try await other.run { connection in _ = try connection.execute("COMMIT") }

            #expect(try await upsert.value == [.updated])
            let raw = try await TestStores.rawText(location, "SELECT \(read) FROM observation WHERE patient = 'p-1'")
            await store.close()
            return raw
        }
    }
}
