import Foundation
import Synchronization

/// A real FHIR R4 server for tests: `sekmet-fhir` (FastAPI + SQLite) from `.venv-fhir` (created on first use by
/// `scripts/fhir-server-venv.sh`; `DVP_SEKMET` names another `sekmet` executable), bound to 127.0.0.1 on a free
/// port with its simulator off and a fresh database, stopped when released.
public final class TestFHIRServer: Sendable {
    /// The FHIR base URL, e.g. `http://127.0.0.1:40123/fhir`.
    public let baseURL: String
    public let port: Int
    private let process: Mutex<ChildProcess>
    private let directory: URL
    private let sekmet: URL
    private let settings: URL

    /// Inbound validation of the server: `strict` checks every resource, `off` stores any JSON with a valid id.
    public enum Validation: String, Sendable { case strict, off }

    /// Starts a server and waits until `/metadata` answers.
    /// - Parameters:
    ///   - validation: `off` for the store contract's synthetic records (not complete Observations).
    ///   - bearerTokens: tokens the server accepts; none → no authorization.
    /// - Throws: ``TestSetupError`` when the server cannot be installed or does not come up.
    public init(validation: Validation = .strict, bearerTokens: [String] = []) async throws {
        sekmet = try await Self.executable()
        directory = try TestEnvironment.temporaryDirectory("dvp-sekmet")
        var lastError = ""
        for _ in 0..<5 {
            let port = try FreePort.pick()
            let base = "http://127.0.0.1:\(port)/fhir"
            let tokens = bearerTokens.map { "\"\($0)\"" }.joined(separator: ", ")
            let auth = bearerTokens.isEmpty ? "" : "server_auth: {types: [bearer], tokens: [\(tokens)]}\n"
            let settingsFile = directory.appendingPathComponent("settings-\(port).yaml")
            try """
            base_url: \(base)
            host: 127.0.0.1
            port: \(port)
            data_dir: \(directory.path)/data-\(port)
            simulator: {enabled: false}
            log_inbound: false
            validation: {inbound: "\(validation.rawValue)"}
            \(auth)
            """.write(to: settingsFile, atomically: true, encoding: .utf8)
            let child = try Self.launch(sekmet, settingsFile, directory)
            if await Self.answers(port: port, child: child) {
                self.port = port
                baseURL = base
                settings = settingsFile
                process = Mutex(child)
                return
            }
            lastError = child.stderr.suffix(2000).description
            child.terminate()
        }
        try? FileManager.default.removeItem(at: directory)
        throw TestSetupError("sekmet-fhir did not come up on 127.0.0.1: \(lastError)")
    }

    deinit {
        process.withLock { $0.terminate() }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Stops the server (SIGTERM; SIGKILL when uvicorn's graceful shutdown still waits on kept-alive connections after
    /// 3 s) and waits for it; its database stays for ``restart()``.
    /// - Returns: whether the process ended.
    @discardableResult
    public func stop() async -> Bool {
        let child = process.withLock { $0 }
        child.signal(SIGTERM)
        if await child.waitForExit(timeout: .seconds(3)) != nil { return true }
        child.signal(SIGKILL)
        return await child.waitForExit(timeout: .seconds(10)) != nil
    }

    /// Starts the server again on the same port and database (after ``stop()``).
    /// - Throws: ``TestSetupError`` when it does not come up.
    public func restart() async throws {
        let child = try Self.launch(sekmet, settings, directory)
        process.withLock { $0 = child }
        guard await Self.answers(port: port, child: child) else {
            throw TestSetupError("sekmet-fhir did not come back on port \(port): \(child.stderr.suffix(2000))")
        }
    }

    private static func launch(_ sekmet: URL, _ settings: URL, _ directory: URL) throws -> ChildProcess {
        try ChildProcess(
            sekmet.path, ["serve", "-c", settings.path], directory: directory, name: "sekmet",
            environment: ["SEKMET_CONFIG": settings.path])
    }

    /// Waits for uvicorn's "Uvicorn running on" line (printed once the socket is bound), or the process's end.
    private static func answers(port: Int, child: ChildProcess) async -> Bool {
        let up = await child.waitForStderr(timeout: .seconds(60)) {
            $0.contains("Uvicorn running on") || $0.contains("error while attempting to bind")
        }
        return up && child.isRunning && child.stderr.contains("Uvicorn running on http://127.0.0.1:\(port)")
    }

    private static let tool = ScriptInstalledTool(
        variable: "DVP_SEKMET", path: TestEnvironment.root.appendingPathComponent(".venv-fhir/bin/sekmet"),
        script: "fhir-server-venv.sh",
        fix: "Create it with: scripts/fhir-server-venv.sh")

    /// The `sekmet` executable: `DVP_SEKMET`, else `.venv-fhir/bin/sekmet` (installed on first use).
    public static func executable() async throws -> URL { try await tool.executable() }
}

/// A TCP port on 127.0.0.1 that was free a moment ago (bound to port 0, read back, closed): callers retry on a
/// clash.
public enum FreePort {
    public static func pick() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestSetupError("socket() failed: errno \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw TestSetupError("bind() failed: errno \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
