import Foundation

/// A throwaway PostgreSQL cluster of its own, run by `scripts/pg-test-cluster.sh` (initdb, start on a free port,
/// stop, restart). Stopped when released; the data directory is removed.
public final class PostgresCluster: @unchecked Sendable {
    /// The data directory.
    public let directory: URL
    /// The connection URL printed at the first start.
    public private(set) var url: String
    private let ownsDirectory: Bool

    /// Creates and starts a cluster in `directory` (a new temporary one when nil) on a free port.
    /// - Throws: ``TestSetupError`` with the script's output when it cannot start.
    public init(directory: URL? = nil) throws {
        ownsDirectory = directory == nil
        // Outside the checkout: the server runs as `postgres` when we are root, who may not enter the clone.
        self.directory =
            directory ?? URL(fileURLWithPath: "/var/tmp").appendingPathComponent("dvp-pg-test-\(UUID().uuidString)")
        url = ""
        url = try Self.script(["start", self.directory.path, "auto"]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    deinit {
        _ = try? runCommand(TestEnvironment.script("pg-test-cluster.sh"), ["stop", directory.path])
        if ownsDirectory { try? FileManager.default.removeItem(at: directory) }
    }

    /// The port the server listens on.
    public var port: Int? { URLComponents(string: url)?.port }

    /// Fast shutdown.
    public func stop() throws { try Self.script(["stop", directory.path]) }

    /// Starts the stopped server again on its port.
    public func start() throws { try Self.script(["start", directory.path, port.map(String.init) ?? "auto"]) }

    /// `fast` (clients disconnected) or `immediate` (crash, WAL recovery) restart.
    public func restart(_ mode: String) throws { try Self.script(["restart-\(mode)", directory.path]) }

    @discardableResult
    static func script(_ arguments: [String]) throws -> String {
        let result = try runCommand(TestEnvironment.script("pg-test-cluster.sh"), arguments)
        guard result.status == 0 else {
            throw TestSetupError("pg-test-cluster.sh \(arguments.joined(separator: " ")) failed: \(result.stderr)")
        }
        return result.stdout
    }
}
