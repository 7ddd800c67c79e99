import Foundation
import Synchronization

/// The PostgreSQL server the tests share: `DVP_POSTGRES_URL` when set (`scripts/test.sh` starts one), else a
/// throwaway cluster this test process starts on first use and stops when it exits.
public enum TestPostgres {
    /// The variable naming a server to use instead of a throwaway one.
    public static let urlVariable = "DVP_POSTGRES_URL"

    private static let shared = Mutex<Result<String, TestSetupError>?>(nil)
    nonisolated(unsafe) private static var ownCluster: PostgresCluster?

    /// The shared server's URL.
    /// - Throws: ``TestSetupError`` saying why no server could be started (no PostgreSQL binaries, not root, …).
    public static func url() throws -> String {
        if let url = ProcessInfo.processInfo.environment[urlVariable], !url.isEmpty { return url }
        return try shared.withLock { state in
            if state == nil { state = startOwnCluster() }
            return try state!.get()
        }
    }

    private static func startOwnCluster() -> Result<String, TestSetupError> {
        let initdb = (ProcessInfo.processInfo.environment["PG_BIN"] ?? "/usr/lib/postgresql/15/bin") + "/initdb"
        guard FileManager.default.isExecutableFile(atPath: initdb) else {
            return .failure(
                TestSetupError(
                    "\(urlVariable) is not set and no PostgreSQL server binaries were found (\(initdb)): install "
                        + "them (`scripts/install-deps.sh`, as root), or export \(urlVariable) with a server you may "
                        + "create databases on, or run the tests with `scripts/test.sh`"))
        }
        do {
            let cluster = try PostgresCluster()
            ownCluster = cluster
            atexit { TestPostgres.stopOwnCluster() }
            return .success(cluster.url)
        } catch {
            return .failure(
                TestSetupError(
                    "\(urlVariable) is not set and a throwaway PostgreSQL could not be started (PostgreSQL refuses "
                        + "to run as root unless the `postgres` user exists; see scripts/pg-test-cluster.sh): "
                        + "\(error)"))
        }
    }

    private static func stopOwnCluster() {
        ownCluster = nil  // deinit: stop, remove the data directory
    }

    /// A fresh, empty database on the shared server (created with psql); returns its URL.
    public static func freshDatabase(_ prefix: String = "dvp_test") throws -> String {
        let base = try url()
        let name = "\(prefix)_\(UUID().uuidString.prefix(8).lowercased())"
        let result = try runCommand("/usr/bin/psql", [base, "-v", "ON_ERROR_STOP=1", "-qc", "CREATE DATABASE \(name)"])
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
