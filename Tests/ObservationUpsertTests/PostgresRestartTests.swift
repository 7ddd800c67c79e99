import Foundation
import Testing

@testable import ObservationUpsert

/// A PostgreSQL server restart between upserts: the store reports a retriable error at most once, then reconnects.
///
/// Runs its own throwaway cluster (started with `scripts/pg-test-cluster.sh`), so restarting it cannot disturb other
/// suites sharing the `DVP_POSTGRES_URL` cluster.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct PostgresRestartTests {
    @Test(arguments: ["restart-fast", "restart-immediate"])
    func upsertAfterRestartReconnects(restart: String) async throws {
        _ = try TestStores.postgresURL()  // the PostgreSQL suites need the test environment either way
        try await withPrivateCluster { url, directory in
            let store = try await PostgresObservationStore(connectionString: url)
            #expect(try await store.upsert([record(version: 1)]) == [.inserted])

            try await runScript([restart, directory])

            var first: [UpsertOutcome]?
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

    private func withPrivateCluster(_ body: (_ url: String, _ directory: String) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dvp-pg-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let start = try await ChildProcess.run(ChildProcess.pgTestCluster, ["start", directory.path, "auto"])
        try #require(start.status == 0, "could not start a private PostgreSQL cluster: \(start.standardError)")
        let started = start.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        do {
            try await body(started, directory.path)
        } catch {
            _ = try? await ChildProcess.run(ChildProcess.pgTestCluster, ["stop", directory.path])
            throw error
        }
        try await runScript(["stop", directory.path])
    }

    private func runScript(_ arguments: [String]) async throws {
        let result = try await ChildProcess.run(ChildProcess.pgTestCluster, arguments)
        try #require(
            result.status == 0, "pg-test-cluster.sh \(arguments.joined(separator: " ")): \(result.standardError)")
    }
}
