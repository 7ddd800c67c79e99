import Foundation
import Synchronization

/// The PostgreSQL server the tests share: `DVP_POSTGRES_URL` when set (`scripts/test.sh` starts one), else a
/// throwaway cluster this test process starts on first use; a detached watcher (`pg-test-cluster.sh remove-after`)
/// stops and removes it once this process has ended, however it ended (a crash included).
///
/// Everything here is `async`: the first use starts a server, which must not hold a thread of Swift's small
/// cooperative pool (tests running meanwhile may need every one of them).
public enum TestPostgres {
    /// The variable naming a server to use instead of a throwaway one.
    public static let urlVariable = "DVP_POSTGRES_URL"

    /// The slow part of a fresh database: `CREATE DATABASE` (the template written to WAL), its first connections and
    /// schema (a cold catalog cache). Parameterized store suites start every case together; ~100 of these at once on
    /// a loaded 2-core machine made connecting take over the stores' 10 s connect timeout (CI, 4 cases of the
    /// lifecycle rules). Four at once keep the server busy without starving anyone. Held only for those steps, never
    /// for a test's body nor for `DROP DATABASE` (its forced checkpoint waits for the checkpointer, and concurrent
    /// drops share one checkpoint), so the wait for one is bounded.
    public static let setupSlots = ConcurrencyLimit(limit: 4)

    /// Fresh databases in use at once, each for a whole test (a store holds 1–3 connections; the server allows 300).
    /// Generous on purpose: a test waiting here counts the wait in its time limit, and when eight slots covered the
    /// whole use, tests that run workers for a minute held them all while the lifecycle rules' short cases queued
    /// past their two minutes (CI, 6 cases).
    public static let databasesInUse = ConcurrencyLimit(limit: 40)

    private static let shared = Mutex<Task<String, any Error>?>(nil)
    nonisolated(unsafe) private static var ownCluster: PostgresCluster?

    /// The shared server's URL.
    /// - Throws: ``TestSetupError`` saying why no server could be started (no PostgreSQL binaries, not root, …).
    public static func url() async throws -> String {
        if let url = ProcessInfo.processInfo.environment[urlVariable], !url.isEmpty { return url }
        let start = shared.withLock { task in
            if task == nil { task = Task { try await startOwnCluster() } }
            return task!
        }
        return try await start.value
    }

    private static func startOwnCluster() async throws -> String {
        let initdb = (ProcessInfo.processInfo.environment["PG_BIN"] ?? "/usr/lib/postgresql/15/bin") + "/initdb"
        guard FileManager.default.isExecutableFile(atPath: initdb) else {
            throw TestSetupError(
                "\(urlVariable) is not set and no PostgreSQL server binaries were found (\(initdb)): install them "
                    + "(`scripts/install-deps.sh`, as root), or export \(urlVariable) with a server you may create "
                    + "databases on, or run the tests with `scripts/test.sh`")
        }
        do {
            let cluster = try await PostgresCluster.start(fsync: false)
            ownCluster = cluster  // never released: the watcher removes it after this process
            try await PostgresCluster.script([
                "remove-after", cluster.directory.path, "\(ProcessInfo.processInfo.processIdentifier)",
            ])
            return cluster.url
        } catch {
            throw TestSetupError(
                "\(urlVariable) is not set and a throwaway PostgreSQL could not be started (PostgreSQL refuses to "
                    + "run as root unless the `postgres` user exists; see scripts/pg-test-cluster.sh): \(error)")
        }
    }

    /// A fresh, empty database on the shared server (created with psql); returns its URL.
    public static func freshDatabase(_ prefix: String = "dvp_test") async throws -> String {
        let base = try await url()
        let name = "\(prefix)_\(UUID().uuidString.prefix(8).lowercased())"
        let result = try await setupSlots.run {
            try await ChildProcess.run(
                "/usr/bin/psql", [base, "-v", "ON_ERROR_STOP=1", "-qc", "CREATE DATABASE \(name)"])
        }
        guard result.status == 0 else { throw TestSetupError("CREATE DATABASE failed: \(result.stderr)") }
        return withDatabase(name, in: base)
    }

    /// `postgresql://user@host:port/DB?query` with DB replaced by `name`.
    public static func withDatabase(_ name: String, in url: String) -> String {
        let query = url.range(of: "?").map { String(url[$0.lowerBound...]) } ?? ""
        let withoutQuery = url.range(of: "?").map { String(url[..<$0.lowerBound]) } ?? url
        guard let slash = withoutQuery.range(of: "/", options: .backwards),
            withoutQuery.distance(from: withoutQuery.startIndex, to: slash.lowerBound) > "postgresql://".count - 1
        else { return url }
        return String(withoutQuery[..<slash.upperBound]) + name + query
    }
}
