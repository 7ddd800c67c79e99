import Foundation

/// The PostgreSQL store of one scenario: a fresh database on the shared test server, or a throwaway cluster of
/// its own (`scripts/pg-test-cluster.sh`) when the scenario restarts it or no shared server is configured.
final class ScenarioStore: @unchecked Sendable {
    /// The libpq URL the workers and `storectl` use.
    let url: String
    /// The data directory of the scenario's own cluster, nil on the shared server.
    let clusterDirectory: URL?

    static let storectl = TestEnvironment.binary("storectl")

    /// Creates the store and installs the version-audit trigger (`storectl audit-install`).
    init(in directory: URL, ownCluster: Bool) throws {
        let shared = ProcessInfo.processInfo.environment["DVP_POSTGRES_URL"].map { !$0.isEmpty } ?? false
        if ownCluster || !shared {
            let dir = directory.appendingPathComponent("pg")
            var lastError = ""
            var started: String?
            for _ in 0..<3 where started == nil {
                let port = Int.random(in: 40000...49999)
                let result = try runCommand(TestEnvironment.script("pg-test-cluster.sh"), ["start", dir.path, "\(port)"])
                if result.status == 0 {
                    started = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                } else {
                    lastError = result.stderr
                }
            }
            guard let started else { throw TestSetupError("pg-test-cluster.sh start failed: \(lastError)") }
            url = started
            clusterDirectory = dir
        } else {
            url = try TestEnvironment.freshPostgresDatabase("reliability")
            clusterDirectory = nil
        }
        let audit = try runCommand(Self.storectl, ["audit-install", "--store", url])
        guard audit.status == 0 else { throw TestSetupError("storectl audit-install failed: \(audit.stderr)") }
    }

    deinit {
        if let clusterDirectory {
            _ = try? runCommand(TestEnvironment.script("pg-test-cluster.sh"), ["stop", clusterDirectory.path])
        }
    }

    /// Restarts the scenario's own cluster: `fast` (clients disconnected) or `immediate` (crash + WAL recovery).
    func restart(_ mode: String) throws {
        guard let clusterDirectory else { throw TestSetupError("restart needs the scenario's own cluster") }
        let result = try runCommand(TestEnvironment.script("pg-test-cluster.sh"), ["restart-\(mode)", clusterDirectory.path])
        guard result.status == 0 else { throw TestSetupError("restart-\(mode) failed: \(result.stderr)") }
    }

    /// `storectl audit-check`: the number of stored-version decreases the audit trigger recorded.
    func versionDecreases() throws -> Int {
        let result = try runCommand(Self.storectl, ["audit-check", "--store", url])
        guard let line = result.stdout.split(separator: "\n").first(where: { $0.hasPrefix("decreases: ") }),
            let n = Int(line.dropFirst("decreases: ".count))
        else { throw TestSetupError("storectl audit-check failed: \(result.stdout) \(result.stderr)") }
        return n
    }

    /// Runs SQL through psql (for stalls: `LOCK TABLE`), returning the process so the caller ends it.
    func psql(_ sql: String, directory: URL) throws -> ChildProcess {
        try ChildProcess("/usr/bin/psql", [url, "-v", "ON_ERROR_STOP=1", "-c", sql], directory: directory, name: "psql")
    }
}
