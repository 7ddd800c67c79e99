import Foundation

/// A throwaway PostgreSQL cluster of its own, run by `scripts/pg-test-cluster.sh` (initdb, start on a free port,
/// stop, restart). Stopped when released; a data directory it created is removed.
///
/// Operations are `async`, so waiting for the script holds no thread of Swift's small cooperative pool; `restart`
/// also comes blocking, for synchronous scenario code.
public final class PostgresCluster: @unchecked Sendable {
    /// The data directory.
    public let directory: URL
    /// The connection URL printed at the first start.
    public let url: String
    private let ownsDirectory: Bool
    /// The server's process id, read after each start: the clean-up signals it when `pg_ctl` cannot stop the server
    /// any more (its data directory was removed first, e.g. with the test's temporary directory).
    private var serverPID: Int32?

    /// Creates and starts a cluster in `directory` (a new temporary one when nil) on a free port; with `fsync` false,
    /// as `pg-test-cluster.sh start --no-fsync` (the tests' shared server, whose fresh databases' forced checkpoints
    /// would sync every table of every test).
    /// - Throws: ``TestSetupError`` with the script's output when it cannot start.
    public static func start(directory: URL? = nil, fsync: Bool = true) async throws -> PostgresCluster {
        let (directory, owns) = location(directory)
        let url = try await script(["start", directory.path, "auto"] + (fsync ? [] : ["--no-fsync"]))
        return PostgresCluster(directory: directory, url: url, ownsDirectory: owns)
    }

    private init(directory: URL, url: String, ownsDirectory: Bool) {
        self.directory = directory
        self.url = url.trimmingCharacters(in: .whitespacesAndNewlines)
        self.ownsDirectory = ownsDirectory
        readServerPID()
    }

    deinit {
        let stopped = try? ChildProcess.runBlocking(TestEnvironment.script("pg-test-cluster.sh"), ["stop", directory.path])
        if stopped?.status != 0, let serverPID { kill(serverPID, SIGQUIT) }  // immediate shutdown
        if ownsDirectory { try? FileManager.default.removeItem(at: directory) }
    }

    /// The first line of `postmaster.pid`.
    private func readServerPID() {
        let file = directory.appendingPathComponent("postmaster.pid")
        let text = try? String(contentsOf: file, encoding: .utf8)
        serverPID = text?.split(separator: "\n").first.flatMap { Int32($0) }
    }

    /// Outside the checkout: the server runs as `postgres` when we are root, who may not enter the clone.
    private static func location(_ directory: URL?) -> (URL, owned: Bool) {
        if let directory { return (directory, false) }
        return (URL(fileURLWithPath: "/var/tmp").appendingPathComponent("dvp-pg-test-\(UUID().uuidString)"), true)
    }

    /// The port the server listens on.
    public var port: Int? { URLComponents(string: url)?.port }

    /// Fast shutdown.
    public func stop() async throws {
        try await Self.script(["stop", directory.path])
        serverPID = nil
    }

    /// `fast` (clients disconnected) or `immediate` (crash, WAL recovery) restart.
    public func restart(_ mode: String) async throws {
        try await Self.script(["restart-\(mode)", directory.path])
        readServerPID()
    }

    // MARK: - The script

    @discardableResult
    static func script(_ arguments: [String]) async throws -> String {
        try check(await ChildProcess.run(TestEnvironment.script("pg-test-cluster.sh"), arguments), arguments)
    }

    private static func check(_ result: ProcessResult, _ arguments: [String]) throws -> String {
        guard result.status == 0 else {
            throw TestSetupError("pg-test-cluster.sh \(arguments.joined(separator: " ")) failed: \(result.stderr)")
        }
        return result.stdout
    }
}
