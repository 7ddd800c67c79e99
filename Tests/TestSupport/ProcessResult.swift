import Foundation

/// A finished child process: its exit status and captured output.
public struct ProcessResult: Sendable {
    /// The exit code (shell-style: 128 + the signal number when a signal ended the process).
    public var status: Int32
    /// Standard output, as bytes.
    public var stdoutData: Data
    /// Standard error.
    public var stderr: String

    /// Standard output.
    public var stdout: String { String(decoding: stdoutData, as: UTF8.self) }
    /// Same as ``stdout``.
    public var standardOutput: String { stdout }
    /// Same as ``stderr``.
    public var standardError: String { stderr }
}

extension ChildProcess {
    /// Runs `executable` to completion without blocking a cooperative thread; output goes through files.
    public static func run(
        _ executable: String, _ arguments: [String], input: Input = .none, environment: [String: String] = [:],
        inheritsDVPVariables: Bool = true
    ) async throws -> ProcessResult {
        let child = try ChildProcess(
            executable, arguments, environment: environment, inheritsDVPVariables: inheritsDVPVariables, input: input)
        let status = await child.exited()
        return ProcessResult(status: status, stdoutData: child.stdoutData, stderr: child.stderr)
    }

    /// Runs `executable` to completion, blocking the calling thread (for synchronous set-up and clean-up code).
    public static func runBlocking(
        _ executable: String, _ arguments: [String], input: Input = .none, environment: [String: String] = [:]
    ) throws -> ProcessResult {
        let child = try ChildProcess(executable, arguments, environment: environment, input: input)
        child.process.waitUntilExit()
        return ProcessResult(status: child.exitStatus ?? -1, stdoutData: child.stdoutData, stderr: child.stderr)
    }
}

/// Runs a command to completion and returns its exit status and output (blocking; see
/// ``ChildProcess/runBlocking(_:_:input:environment:)``).
@discardableResult
public func runCommand(
    _ executable: String, _ arguments: [String], input: String? = nil, environment: [String: String] = [:]
) throws -> ProcessResult {
    try ChildProcess.runBlocking(
        executable, arguments, input: input.map { .text($0) } ?? .none, environment: environment)
}
