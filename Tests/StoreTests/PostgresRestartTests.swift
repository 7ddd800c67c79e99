import Foundation
import ObservationMapping
import PostgresStore
import StoreCore
import TestSupport
import Testing

/// A PostgreSQL server restart between upserts: the store reports a retriable error at most once, then reconnects.
///
/// Runs its own throwaway cluster (``PostgresCluster``, via `scripts/pg-test-cluster.sh`), so restarting it cannot
/// disturb other suites sharing the `DVP_POSTGRES_URL` cluster.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct PostgresRestartTests {
    @Test(arguments: ["restart-fast", "restart-immediate"])
    func upsertAfterRestartReconnects(restart: String) async throws {
        _ = try await TestStores.postgresURL()  // the PostgreSQL suites need the test environment either way
        try await withPrivateCluster { cluster in
            let store = try await PostgresObservationStore(connectionString: cluster.url)
            #expect(try await store.upsert([record(version: 1)]) == [.inserted])

            try await cluster.restart(String(restart.dropFirst("restart-".count)))

            var first: [UpsertResult]?
            do {
                first = try await store.upsert([record(version: 2)])
            } catch let error as StoreError {
                #expect(error.isRetriable, "\(error)")
                #expect(error.code == .connection, "\(error)")
            }
            // The caller retries the batch; the version guard makes a re-run of an applied batch harmless.
            let retried = try await store.upsert([record(version: 2)])
            #expect(retried == (first == nil ? [.updated] : [.unchanged]))
            #expect(try await store.upsert([record(version: 3)]) == [.updated])
            #expect(try await store.observation(for: record(version: 0).identity)?.versionId == 3)
            await store.close()
        }
    }

    @Test func unreachableServerIsARetriableConnectionError() async throws {
        let error = await #expect(throws: StoreError.self) {
            _ = try await PostgresObservationStore(
                connectionString: "postgresql://postgres@127.0.0.1:1/postgres?connect_timeout=2")
        }
        #expect(error?.code == .connection && error?.isRetriable == true)
    }

    // MARK: - Private cluster

    private func withPrivateCluster(_ body: (PostgresCluster) async throws -> Void) async throws {
        let cluster = try await PostgresCluster.start()  // stopped and removed when released, on every path
        try await body(cluster)
        try await cluster.stop()
    }
}
