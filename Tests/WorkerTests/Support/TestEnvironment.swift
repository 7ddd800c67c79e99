import Foundation

/// Where the built executables, scripts and the test PostgreSQL are.
enum TestEnvironment {
    /// The package root, from this file's path.
    static let root: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The directory holding `worker`, `producer`, `devbroker`, `storectl` (`DVP_BIN_DIR`, else `.build/debug`).
    static var binDirectory: URL {
        if let dir = ProcessInfo.processInfo.environment["DVP_BIN_DIR"] { return URL(fileURLWithPath: dir) }
        return root.appendingPathComponent(".build/debug")
    }

    static func binary(_ name: String) -> String { binDirectory.appendingPathComponent(name).path }

    static func script(_ name: String) -> String { root.appendingPathComponent("scripts/\(name)").path }

    /// The test PostgreSQL server's URL (`DVP_POSTGRES_URL`, set by `scripts/test.sh`).
    static func postgresURL() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["DVP_POSTGRES_URL"], !url.isEmpty else {
            throw TestSetupError(
                "DVP_POSTGRES_URL is not set: run the suite with scripts/test.sh, which starts a throwaway PostgreSQL")
        }
        return url
    }

    /// A fresh, empty database on the test server; returns its URL.
    static func freshPostgresDatabase(_ prefix: String = "worker") throws -> String {
        let base = try postgresURL()
        let name = "\(prefix)_\(UUID().uuidString.prefix(8).lowercased())"
        let result = try runCommand("/usr/bin/psql", [base, "-v", "ON_ERROR_STOP=1", "-qc", "CREATE DATABASE \(name)"])
        guard result.status == 0 else { throw TestSetupError("CREATE DATABASE failed: \(result.stderr)") }
        return withDatabase(name, in: base)
    }

    /// `postgresql://user@host:port/DB?query` with DB replaced by `name`.
    static func withDatabase(_ name: String, in url: String) -> String {
        let query = url.range(of: "?").map { String(url[$0.lowerBound...]) } ?? ""
        let withoutQuery = url.range(of: "?").map { String(url[..<$0.lowerBound]) } ?? url
        guard let slash = withoutQuery.range(of: "/", options: .backwards),
            withoutQuery.distance(from: withoutQuery.startIndex, to: slash.lowerBound) > "postgresql://".count - 1
        else { return url }
        return String(withoutQuery[..<slash.upperBound]) + name + query
    }

    /// A new temporary directory, removed by the caller's `defer`.
    static func temporaryDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("dvp-worker-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }
}

struct TestSetupError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
