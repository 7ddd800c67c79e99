import Foundation

/// A real child process (worker, devbroker, producer, storectl, psql) with its output captured to files.
final class ChildProcess: @unchecked Sendable {
    let process = Process()
    let stdoutURL: URL
    let stderrURL: URL
    let name: String

    /// Starts `executable` with `arguments`; output goes to files in `directory`.
    init(_ executable: String, _ arguments: [String], directory: URL, name: String? = nil,
         environment: [String: String] = [:]) throws {
        self.name = name ?? URL(fileURLWithPath: executable).lastPathComponent
        let tag = "\(self.name)-\(UUID().uuidString.prefix(6))"
        stdoutURL = directory.appendingPathComponent("\(tag).out")
        stderrURL = directory.appendingPathComponent("\(tag).err")
        FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
        FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env.merge(environment) { $1 }
        process.environment = env
        process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    var pid: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }
    var stdout: String { (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }

    func signal(_ sig: Int32) { kill(process.processIdentifier, sig) }

    /// Waits for the exit status, shell-style: the exit code, or 128 + the signal number when a signal ended the
    /// process (134 = SIGABRT, 137 = SIGKILL; Foundation reports the bare signal number with
    /// `terminationReason == .uncaughtSignal`, which would read as an exit code). nil if still running after `timeout`.
    func waitForExit(timeout: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            if ContinuousClock.now >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return exitStatus
    }

    /// The shell-style exit status of an ended process (see ``waitForExit(timeout:)``); nil while it runs.
    var exitStatus: Int32? {
        guard !process.isRunning else { return nil }
        return process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
    }

    /// How a shell-style status reads: `exit 3`, `signal 6 (SIGABRT)`, `still running`.
    static func describe(_ status: Int32?) -> String {
        guard let status else { return "still running" }
        guard status > 128 else { return "exit \(status)" }
        let names: [Int32: String] = [SIGABRT: "SIGABRT", SIGKILL: "SIGKILL", SIGSEGV: "SIGSEGV", SIGTERM: "SIGTERM",
                                      SIGBUS: "SIGBUS", SIGILL: "SIGILL", SIGFPE: "SIGFPE"]
        return "signal \(status - 128) (\(names[status - 128] ?? "?"))"
    }

    /// Polls until `condition` holds for the captured stderr, or the timeout passes.
    func waitForStderr(timeout: Duration, _ condition: (String) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition(stderr) { return true }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return condition(stderr)
    }

    /// Kills the process if it still runs (cleanup on every path).
    func terminate() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit { terminate() }
}

/// Runs a command to completion and returns its exit status and output.
@discardableResult
func runCommand(_ executable: String, _ arguments: [String], input: String? = nil,
                environment: [String: String] = [:]) throws -> (status: Int32, stdout: String, stderr: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    var env = ProcessInfo.processInfo.environment
    env.merge(environment) { $1 }
    process.environment = env
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    let inPipe = Pipe()
    process.standardInput = input == nil ? FileHandle.nullDevice : inPipe
    try process.run()
    if let input {
        inPipe.fileHandleForWriting.write(Data(input.utf8))
        try inPipe.fileHandleForWriting.close()
    }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
}
