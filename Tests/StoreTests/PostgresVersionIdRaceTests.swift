import DailyValueContract
import Essentials
import Foundation
import Hashing
@testable import ObservationMapping
import PostgresClient
@testable import PostgresStore
@testable import StoreCore
import TestSupport
import Testing

/// The PostgreSQL upsert decides `version_id` and the status from its statement snapshot. When another writer commits
/// a replace after that snapshot, the row lock makes the upsert wait and `DO UPDATE` then sees the newer row: the
/// columns and the resource read back whole (its meta.versionId and status) must follow the row, not the snapshot.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct PostgresVersionIdRaceTests {
    @Test func aReplaceCommittedAfterTheSnapshotStillGivesTheRightVersionId() async throws {
        let raw = try await race(
            first: record(version: 1),
            otherWriter: """
                UPDATE observation SET version = 2, version_id = version_id + 1
                WHERE patient = 'p-1' AND metric = 'heart_rate' AND day = '2026-10-01'
                """,
            during: { "\(try await $0.upsert([record(version: 3)]))" },
            read: "version_id || ' ' || version")
        #expect(raw.action == "[updated]")
        #expect(raw.row == "3 3", "version_id and version")
        #expect(raw.resource == "3 -", "the resource's meta.versionId and status")
    }

    /// The snapshot holds a preliminary day; another writer makes it final before the upsert's row lock is granted,
    /// so a different value must give `amended` (docs/LIFECYCLE.md) — in the column and in the resource.
    @Test func aFinalCommittedAfterTheSnapshotMakesADifferentValueAmended() async throws {
        let raw = try await race(
            first: record(version: 1, value: 60, status: .preliminary),
            otherWriter: """
                UPDATE observation SET version = 2, version_id = version_id + 1, status = 'final',
                    clinical_digest = decode($1, 'hex')
                WHERE patient = 'p-1' AND metric = 'heart_rate' AND day = '2026-10-01'
                """,
            parameters: [Hex.lowercase(record(version: 2, value: 60, status: .final).clinicalDigest)],
            during: { "\(try await $0.upsert([record(version: 3, value: 70, status: .final)]))" },
            read: Self.statusRead)
        #expect(raw.action == "[updated]")
        #expect(raw.row == "3 amended", "version_id and the status column")
        #expect(raw.resource == "3 amended", "the resource's meta.versionId and status")
    }

    /// `finalize` against a worker that replaces the preliminary day meanwhile (docs/LIFECYCLE.md): it skips the
    /// row the worker holds (`SKIP LOCKED`, never waiting for a worker) and leaves the newer version alone — never
    /// overwriting it; the next run finds it final.
    @Test func finalizeNeverOverwritesAConcurrentNewerVersion() async throws {
        let raw = try await race(
            first: try FinalizeTests.steps("2026-10-01", version: 1, .preliminary),
            otherWriter: """
                UPDATE observation SET version = 2, version_id = version_id + 1, status = 'final'
                """,
            during: { "\(try await $0.finalize(settledBefore: Int64(Date().timeIntervalSince1970)))" },
            waitsForTheLock: false,
            after: { "\(try await $0.finalize(settledBefore: Int64(Date().timeIntervalSince1970)))" },
            read: Self.statusRead + " || ' ' || version")
        #expect(raw.action == "0 0", "finalized rows, while the worker held the row and after it committed")
        #expect(raw.row == "2 final 2", "the worker's row as it committed it")
        #expect(raw.resource == "2 final")
    }

    /// A worker holds the settled day with a newer preliminary version: finalize skips it this run (0), and the next
    /// run flips the version the worker committed (versionId 3, the worker's version kept).
    @Test func finalizeLeavesARowAWorkerHoldsToTheNextRun() async throws {
        let raw = try await race(
            first: try FinalizeTests.steps("2026-10-01", version: 1, .preliminary),
            otherWriter: """
                UPDATE observation SET version = 2, version_id = version_id + 1
                """,
            during: { "\(try await $0.finalize(settledBefore: Int64(Date().timeIntervalSince1970)))" },
            waitsForTheLock: false,
            after: { "\(try await $0.finalize(settledBefore: Int64(Date().timeIntervalSince1970)))" },
            read: Self.statusRead + " || ' ' || version")
        #expect(raw.action == "0 1", "finalized rows, while the worker held the row and after it committed")
        #expect(raw.row == "3 final 2", "the worker's version, finalized by the next run")
        #expect(raw.resource == "3 final")
    }

    /// Several chunks, one row held by a worker: the loop goes on past the skipped row (a chunk it locked fewer rows
    /// in is not mistaken for the end), and the next run gets the held row.
    @Test func finalizeGoesOnPastAHeldRowAcrossChunks() async throws {
        try await TestStores.withFreshLocation(.postgres) { location in
            guard case .postgres(let url) = location else { return }
            let store = try await PostgresObservationStore(connectionString: url)
            let days = ["2026-09-25", "2026-09-26", "2026-09-27", "2026-09-28", "2026-09-29"]
            _ = try await store.upsert(try days.map { try FinalizeTests.steps($0, version: 1, .preliminary) })
            let other = QueueConfined(label: "test.held-row", try PostgresConnection(connectionString: url))
            try await other.run { connection in
                _ = try connection.execute("BEGIN")
                _ = try connection.execute("SELECT 1 FROM observation WHERE day = '2026-09-26' FOR UPDATE")
            }
            let cutoff = Int64(Date().timeIntervalSince1970)
            #expect(try await store.finalize(settledBefore: cutoff, chunkSize: 2) == 4, "all but the held row")
            try await other.run { connection in _ = try connection.execute("COMMIT") }
            #expect(try await store.finalize(settledBefore: cutoff, chunkSize: 2) == 1, "the held row, next run")
            let statuses = try await TestStores.rawText(
                location, "SELECT string_agg(status || ':' || version_id, ',' ORDER BY day) FROM observation")
            #expect(statuses == "final:2,final:2,final:2,final:2,final:2")
            await store.close()
        }
    }

    static let statusRead = "version_id || ' ' || status"

    /// Stores `first`; another connection runs `otherWriter` in a transaction it holds open; `during` (an upsert or
    /// finalize) must wait for that row lock (or, `waitsForTheLock` false, finish without waiting); the other writer
    /// commits; then `after` runs, if given. Returns what `during` and `after` returned, described, `read` (an SQL
    /// expression over the row) read straight from the table, and the stored resource's meta.versionId and status
    /// (`-`: none) as the store reads it back whole.
    private func race(
        first: ObservationRecord, otherWriter: String, parameters: [String] = [],
        during: @escaping @Sendable (PostgresObservationStore) async throws -> String, waitsForTheLock: Bool = true,
        after: ((PostgresObservationStore) async throws -> String)? = nil, read: String
    ) async throws -> (action: String?, row: String?, resource: String?) {
        try await TestStores.withFreshLocation(.postgres) { location in
            guard case .postgres(let url) = location else { return (nil, nil, nil) }
            let store = try await PostgresObservationStore(
                connectionString: url, options: PostgresClientOptions(applicationName: "dvp-versionid-race"))
            #expect(try await store.upsert([first]) == [.inserted])

            let other = QueueConfined(label: "test.other-writer", try PostgresConnection(connectionString: url))
            try await other.run { connection in
                _ = try connection.execute("BEGIN")
                _ = try connection.execute(otherWriter, parameters)
            }
            let action = Task { try await during(store) }
            if waitsForTheLock {
                let waiting = try await eventually(timeout: .seconds(20), interval: .milliseconds(50)) {
                    try await TestStores.rawText(
                        location,
                        """
                        SELECT count(*) FROM pg_stat_activity
                        WHERE application_name = 'dvp-versionid-race' AND wait_event_type = 'Lock'
                        """) == "1"
                }
                #expect(waiting, "the store never waited for the other writer's row lock")
            } else {
                _ = try await action.value  // while the other writer still holds the row
            }
            try await other.run { connection in _ = try connection.execute("COMMIT") }

            var described = try await action.value
            if let after { described += " " + (try await after(store)) }
            let raw = try await TestStores.rawText(location, "SELECT \(read) FROM observation")  // one row
            let stored = try await store.observation(for: first.identity)
            await store.close()
            let resource = try stored.map { stored -> String in
                let json = try #require(
                    try JSONSerialization.jsonObject(with: Data(stored.resource.utf8)) as? [String: Any])
                let meta = json["meta"] as? [String: Any]
                return "\(meta?["versionId"] as? String ?? "-") \(json["status"] as? String ?? "-")"
            }
            return (described, raw, resource)
        }
    }
}
