import Essentials
import Foundation
import ObservationMapping
import PostgresClient
import PostgresStore
import StoreCore
import TestSupport
import Testing

/// Every PostgreSQL round trip is bounded on the client: the session defaults reach the server, a statement the
/// server does not finish in time is cancelled, and a frozen backend (SIGSTOP: the kernel still ACKs, so neither
/// keepalives nor `statement_timeout` fire) costs one `timeout` error, then the store works on a replacement.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct PostgresDeadlineTests {
    @Test func sessionDefaultsAndOverridesReachTheServer() async throws {
        let url = try await TestStores.postgresURL()
        let defaults = try await settings(url)
        #expect(defaults == ["30s", "10s", "dvp-deadline-test"])
        let overridden = try await settings(
            url + "&options=-c%20statement_timeout%3D5s&application_name=ops")
        #expect(overridden == ["5s", "10s", "ops"])
    }

    @Test func aStatementPastTheRoundTripTimeoutIsCancelled() async throws {
        let url = try await TestStores.postgresURL()
        let options = PostgresClientOptions(applicationName: "dvp-deadline-test", roundTripTimeout: .milliseconds(500))
        let box = QueueConfined(label: "test.deadline", ())
        let (error, elapsed, pid) = try await box.run { _ in
            let connection = try PostgresConnection(connectionString: url, options: options)
            let started = ContinuousClock.now
            var caught: PostgresError?
            do { try connection.execute("SELECT pg_sleep(30)") } catch let error as PostgresError { caught = error }
            #expect(connection.isBroken, "a timed-out connection is never reused")
            return (caught, ContinuousClock.now - started, connection.backendPID)
        }
        #expect(error?.code == .timeout && error?.isRetriable == true, "\(String(describing: error))")
        #expect(error?.message.contains("cancel request sent") == true, "\(String(describing: error))")
        #expect(elapsed < .seconds(10), "took \(elapsed)")  // pg_sleep(30) uncancelled
        // The connection was dropped when the call returned: its backend goes away (cancelled, then disconnected).
        let gone = try await eventually(timeout: .seconds(5), interval: .milliseconds(100)) {
            try await query(url, "SELECT count(*) FROM pg_stat_activity WHERE pid = $1::int", ["\(pid)"]) == ["0"]
        }
        #expect(gone, "backend \(pid) still running pg_sleep")
    }

    @Test func aFrozenBackendTimesOutAndTheStoreReplacesTheConnection() async throws {
        try await TestStores.withFreshLocation(.postgres) { location in
            guard case .postgres(let url) = location else { return }
            let name = "dvp-frozen-\(UUID().uuidString.prefix(8))"
            let store = try await PostgresObservationStore(
                connectionString: url,
                options: PostgresClientOptions(applicationName: name, roundTripTimeout: .seconds(1)))
            #expect(try await store.upsert([record(version: 1)]) == [.inserted])
            let pids = try await backendPIDs(url, applicationName: name)
            let frozen = try #require(pids.first, "no backend named \(name)")
            #expect(pids.count == 1)

            #expect(kill(frozen, SIGSTOP) == 0)
            defer { kill(frozen, SIGCONT) }
            let started = ContinuousClock.now
            let error = await #expect(throws: StoreError.self) { try await store.upsert([record(version: 2)]) }
            let elapsed = ContinuousClock.now - started
            #expect(error?.code == .timeout && error?.isRetriable == true, "\(String(describing: error))")
            #expect(elapsed >= .seconds(1) && elapsed < .seconds(10), "timed out after \(elapsed)")  // frozen: never

            // Still frozen: the retry runs on a replacement connection (the frozen one never began the batch).
            #expect(try await store.upsert([record(version: 2)]) == [.updated])
            let replacement = try await backendPIDs(url, applicationName: name).filter { $0 != frozen }
            #expect(replacement.count == 1, "expected one new backend besides the frozen \(frozen): \(replacement)")

            kill(frozen, SIGCONT)
            #expect(try await store.observation(for: record(version: 0).identity)?.version == 2)
            await store.close()
        }
    }

    // MARK: - Helpers

    /// `statement_timeout`, `lock_timeout` and `application_name` of a store connection opened with `url`.
    private func settings(_ url: String) async throws -> [String] {
        let box = QueueConfined(label: "test.settings", ())
        return try await box.run { _ in
            let connection = try PostgresConnection(
                connectionString: url, options: PostgresClientOptions(applicationName: "dvp-deadline-test"))
            return try ["statement_timeout", "lock_timeout", "application_name"].map { name in
                try connection.execute("SELECT current_setting($1)", [name]).text(0, 0)
            }
        }
    }

    private func backendPIDs(_ url: String, applicationName: String) async throws -> [Int32] {
        try await query(url, "SELECT pid FROM pg_stat_activity WHERE application_name = $1", [applicationName])
            .compactMap { Int32($0) }
    }

    /// The first column of every row of `sql`, run on a fresh connection.
    private func query(_ url: String, _ sql: String, _ parameters: [String]) async throws -> [String] {
        let box = QueueConfined(label: "test.query", ())
        return try await box.run { _ in
            let result = try PostgresConnection(connectionString: url).execute(sql, parameters)
            return result.rows { result.text($0, 0) }
        }
    }
}
