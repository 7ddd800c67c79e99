import Foundation
import Kafka

/// A real child process (worker, devbroker, producer, storectl, psql, a script) with its output captured to files,
/// so no pipe can fill up and stall it. It is killed when released, so tests clean up on every path.
public final class ChildProcess: @unchecked Sendable {
    /// What the child reads on standard input.
    public enum Input {
        /// `/dev/null`.
        case none
        /// The contents of a file.
        case file(URL)
        /// The given text.
        case text(String)
        /// A pipe the test writes to (``ChildProcess/input``).
        case pipe
    }

    /// The Foundation process (for its termination reason and status).
    public let process = Process()
    /// The file standard output goes to.
    public let stdoutURL: URL
    /// The file standard error goes to.
    public let stderrURL: URL
    /// A name for messages: the executable's, unless given.
    public let name: String
    /// The write end of the child's standard input with ``Input/pipe``.
    public let input: FileHandle?
    private let ownedDirectory: URL?
    private let exit = ExitSignal()

    /// Starts `executable` with `arguments`; output goes to files in `directory` (a temporary one, removed with the
    /// process object, when nil).
    /// - Parameters:
    ///   - environment: variables added to (or replacing) the test process's own.
    ///   - inheritsDVPVariables: false to start without the test process's `DVP_*` variables.
    public init(
        _ executable: String, _ arguments: [String], directory: URL? = nil, name: String? = nil,
        environment: [String: String] = [:], inheritsDVPVariables: Bool = true, input: Input = .none
    ) throws {
        self.name = name ?? URL(fileURLWithPath: executable).lastPathComponent
        ownedDirectory = directory == nil ? try TestEnvironment.temporaryDirectory("dvp-child") : nil
        let directory = directory ?? ownedDirectory!
        let tag = "\(self.name)-\(UUID().uuidString.prefix(6))"
        stdoutURL = directory.appendingPathComponent("\(tag).out")
        stderrURL = directory.appendingPathComponent("\(tag).err")
        _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        if !inheritsDVPVariables { env = env.filter { !$0.key.hasPrefix("DVP_") } }
        env.merge(environment) { $1 }
        process.environment = env
        let stdoutHandle = try FileHandle(forWritingTo: stdoutURL)
        let stderrHandle = try FileHandle(forWritingTo: stderrURL)
        var childsOnly = [stdoutHandle, stderrHandle]
        process.standardOutput = stdoutHandle
        process.standardError = stderrHandle
        switch input {
        case .none:
            process.standardInput = FileHandle.nullDevice
            self.input = nil
        case .file(let url):
            let handle = try FileHandle(forReadingFrom: url)
            childsOnly.append(handle)
            process.standardInput = handle
            self.input = nil
        case .text(let text):
            let url = directory.appendingPathComponent("\(tag).in")
            try Data(text.utf8).write(to: url)
            let handle = try FileHandle(forReadingFrom: url)
            childsOnly.append(handle)
            process.standardInput = handle
            self.input = nil
        case .pipe:
            let pipe = Pipe()
            process.standardInput = pipe
            self.input = pipe.fileHandleForWriting
        }
        let exit = self.exit
        process.terminationHandler = { exit.signal($0.terminationReason == .uncaughtSignal, $0.terminationStatus) }
        // Not while a mock broker of this process goes down (librdkafka 2.0.2 aborts if the child shares its listener).
        try MockBrokerSpawnGate.spawning { try process.run() }
        // The child has its own copies of these descriptors. Foundation's Process keeps the parent's open for as long
        // as it lives, and the test process piled up hundreds of them; past ~1,300 open descriptors this toolchain's
        // Process.run crashes (its scan of /proc/self/fd copies a whole dirent name past the end of readdir's
        // buffer, fixed in later swift-corelibs-foundation).
        for handle in childsOnly { try? handle.close() }
    }

    deinit {
        terminate()
        if let ownedDirectory { try? FileManager.default.removeItem(at: ownedDirectory) }
    }

    /// The executable and its arguments, for messages.
    public var commandLine: String { ([name] + (process.arguments ?? [])).joined(separator: " ") }

    /// The process id.
    public var pid: Int32 { process.processIdentifier }
    /// Whether the process still runs.
    public var isRunning: Bool { process.isRunning }
    /// Everything written to standard output so far, as bytes.
    public var stdoutData: Data { (try? Data(contentsOf: stdoutURL)) ?? Data() }
    /// Everything written to standard output so far.
    public var stdout: String { String(decoding: stdoutData, as: UTF8.self) }
    /// Everything written to standard error so far.
    public var stderr: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }

    /// Sends `sig` to the process.
    public func signal(_ sig: Int32) { kill(process.processIdentifier, sig) }

    /// Waits, without blocking a thread, until the process ended; returns its shell-style exit status (see
    /// ``exitStatus``).
    public func exited() async -> Int32 { await exit.wait() }

    /// Waits for the exit status, shell-style; nil if still running after `timeout`.
    public func waitForExit(timeout: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            if ContinuousClock.now >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return exitStatus
    }

    /// The shell-style exit status of an ended process: the exit code, or 128 + the signal number when a signal
    /// ended it (134 = SIGABRT, 137 = SIGKILL; Foundation reports the bare signal number with
    /// `terminationReason == .uncaughtSignal`, which would read as an exit code). nil while it runs.
    public var exitStatus: Int32? {
        guard !process.isRunning else { return nil }
        let code = process.terminationStatus
        return process.terminationReason == .uncaughtSignal ? 128 + code : code
    }

    /// How a shell-style status reads: `exit 3`, `signal 6 (SIGABRT)`, `still running`.
    public static func describe(_ status: Int32?) -> String {
        guard let status else { return "still running" }
        guard status > 128 else { return "exit \(status)" }
        let names: [Int32: String] = [
            SIGABRT: "SIGABRT", SIGKILL: "SIGKILL", SIGSEGV: "SIGSEGV", SIGTERM: "SIGTERM", SIGBUS: "SIGBUS",
            SIGILL: "SIGILL", SIGFPE: "SIGFPE",
        ]
        return "signal \(status - 128) (\(names[status - 128] ?? "?"))"
    }

    /// Polls until `condition` holds for the captured stderr, or the timeout passes.
    public func waitForStderr(timeout: Duration, _ condition: (String) -> Bool) async -> Bool {
        await eventually(timeout: timeout, interval: .milliseconds(100)) { condition(stderr) }
    }

    /// Kills the process if it still runs (cleanup on every path).
    public func terminate() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}
