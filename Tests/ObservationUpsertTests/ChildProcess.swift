import Foundation
import Testing

/// A finished child process: exit status and captured output.
struct ChildProcessResult: Sendable {
    var status: Int32
    var standardOutput: String
    var standardError: String
}

/// Starts real processes (the built `storectl`, `scripts/pg-test-cluster.sh`) for integration tests.
enum ChildProcess {
    /// The repository root, found from this source file.
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The built `storectl`: `$DVP_BIN_DIR/storectl` (set by `scripts/test.sh`), else `.build/debug/storectl`.
    static func storectl() throws -> URL { try binary("storectl") }

    /// A built executable: `$DVP_BIN_DIR/NAME`, else `.build/debug/NAME`.
    static func binary(_ name: String) throws -> URL {
        let binDirectory =
            ProcessInfo.processInfo.environment["DVP_BIN_DIR"].map { URL(fileURLWithPath: $0) }
            ?? repositoryRoot.appendingPathComponent(".build/debug")
        let binary = binDirectory.appendingPathComponent(name)
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw TestEnvironmentError(
                "\(binary.path) is missing: run the tests with `scripts/test.sh` (see README), or `swift build` first")
        }
        return binary
    }

    static let pgTestCluster = repositoryRoot.appendingPathComponent("scripts/pg-test-cluster.sh")

    /// Runs `executable` with `arguments` to completion without blocking the cooperative pool; output goes to
    /// temporary files (no pipe can fill up and stall the child).
    static func run(_ executable: URL, _ arguments: [String]) async throws -> ChildProcessResult {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dvp-child-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let outURL = directory.appendingPathComponent("stdout")
        let errURL = directory.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        defer {
            try? out.close()
            try? err.close()
        }

        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = out
        process.standardError = err
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        return ChildProcessResult(
            status: status, standardOutput: try String(contentsOf: outURL, encoding: .utf8),
            standardError: try String(contentsOf: errURL, encoding: .utf8))
    }

    /// Runs `dvp-test-tools` and expects exit status 0.
    @discardableResult
    static func testTools(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws
        -> ChildProcessResult
    {
        let result = try await run(try binary("dvp-test-tools"), arguments)
        #expect(
            result.status == 0, "dvp-test-tools \(arguments.joined(separator: " ")): \(result.standardError)",
            sourceLocation: sourceLocation)
        return result
    }

    /// Runs `storectl` and expects exit status 0.
    @discardableResult
    static func storectl(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws
        -> ChildProcessResult
    {
        let result = try await run(try storectl(), arguments)
        #expect(
            result.status == 0, "storectl \(arguments.joined(separator: " ")): \(result.standardError)",
            sourceLocation: sourceLocation)
        return result
    }
}
