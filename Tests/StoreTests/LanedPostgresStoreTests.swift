import Essentials
import Foundation
import ObservationMapping
import PostgresClient
import PostgresStore
import StoreCore
import TestSupport
import Testing

/// ``LanedPostgresStore`` (`--store-connections N`): a batch split by patient over N connections at once.
@Suite(.timeLimit(.minutes(2)))
struct LanedPostgresStoreTests {
    static let patients = (0..<24).map { "p-\($0)" }

    /// Outcomes come back in input order, every lane wrote on its own connection (its own counter shard), and a
    /// patient's records keep their order (the second of two equal versions is `unchanged`, the first stored).
    @Test func lanesWriteTogetherAndKeepOrder() async throws {
        try await TestStores.withFreshLocation(.postgres) { location in
            guard case .postgres(let url) = location else { return }
            let store = try await LanedPostgresStore(connectionString: url, connections: 3)
            let lanes = Set(Self.patients.map(store.lane(of:)))
            #expect(lanes == [0, 1, 2], "24 patients reach every lane")
            let batch = Self.patients.flatMap { patient in
                [record(patient, version: 2, value: 60), record(patient, version: 1), record(patient, version: 2)]
            }
            let outcomes = try await store.upsert(batch)
            #expect(
                outcomes == Array(repeating: [UpsertResult.inserted, .stale, .unchanged], count: 24).flatMap { $0 })
            let shards = try await TestStores.rawText(location, "SELECT count(DISTINCT shard) FROM outcome_count")
            #expect(shards == "3")
            let versions = try await store.allVersions()
            #expect(versions.count == 24 && versions.values.allSatisfy { $0 == 2 })
            let held = try await store.storedVersions(for: Self.patients.map { record($0, version: 1).identity })
            #expect(held.count == 24 && held.values.allSatisfy { $0.version == 2 && $0.clinicalDigest != nil })
            await store.close()
        }
    }

    /// One lane cannot commit (another session holds one of its rows; the lock wait times out): the batch fails
    /// as a whole with a retriable error, the other lanes' rows are durable, and the retry stores the rest, answering
    /// the committed ones `unchanged`.
    @Test func aFailedLaneFailsTheBatchAndTheRetryCompletesIt() async throws {
        try await TestStores.withFreshLocation(.postgres) { location in
            guard case .postgres(let url) = location else { return }
            var withLockTimeout = try #require(URLComponents(string: url))
            withLockTimeout.percentEncodedQueryItems =
                (withLockTimeout.percentEncodedQueryItems ?? []) + [
                    URLQueryItem(name: "options", value: "-c%20lock_timeout%3D500ms")
                ]
            let store = try await LanedPostgresStore(
                connectionString: try #require(withLockTimeout.string), connections: 2)
            let blocked = try #require(Self.patients.first { store.lane(of: $0) == 0 })
            #expect(try await store.upsert([record(blocked, version: 1)]) == [.inserted])
            let holder = QueueConfined(label: "test.lane-holder", try PostgresConnection(connectionString: url))
            try await holder.run { connection in
                _ = try connection.execute("BEGIN")
                _ = try connection.execute("SELECT 1 FROM observation WHERE patient = '\(blocked)' FOR UPDATE")
            }
            let batch = Self.patients.map { record($0, version: 2) }
            await #expect(throws: StoreError.self) { try await store.upsert(batch) }
            let stored = try await store.allVersions()
            let otherLane = Self.patients.filter { store.lane(of: $0) == 1 }
            #expect(otherLane.allSatisfy { stored[record($0, version: 2).identity] == 2 }, "lane 1 committed")
            #expect(stored[record(blocked, version: 2).identity] == 1, "lane 0 rolled back")
            try await holder.run { connection in _ = try connection.execute("COMMIT") }
            let retried = try await store.upsert(batch)
            for (patient, outcome) in zip(Self.patients, retried) {
                #expect(
                    outcome == (store.lane(of: patient) == 1 ? .unchanged : patient == blocked ? .updated : .inserted))
            }
            await store.close()
        }
    }

    /// The failure a batch reports when several lanes failed: one no retry cures first, then a client-side timeout
    /// (a lane stalled on a frozen backend), then a lost connection, then `busy` (lanes that waited for the stalled
    /// lane's locks fail sooner), whatever order they ended in.
    @Test func theMostTellingLaneFailureIsReported() {
        let busy = StoreError(.busy, nativeCode: "55P03", "lock timeout")
        let timeout = StoreError(.timeout, "no answer within the store timeout")
        let lost = StoreError(.connection, "server closed the connection")
        let query = StoreError(.query, nativeCode: "42P01", "no such table")
        func reported(_ failures: [StoreError]) -> StoreError.Code? {
            (LanedPostgresStore.mostTelling(failures) as? StoreError)?.code
        }
        #expect(reported([busy, timeout]) == .timeout)
        #expect(reported([busy, lost, timeout]) == .timeout)
        #expect(reported([busy, lost]) == .connection)
        #expect(reported([busy, timeout, query]) == .query)
        #expect(reported([busy]) == .busy)
        #expect(reported([]) == nil)
    }
}
