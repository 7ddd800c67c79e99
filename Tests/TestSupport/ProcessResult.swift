import Essentials
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

/// A child process that ran past its time limit and was killed.
public struct ChildProcessTimeout: Error, CustomStringConvertible {
    public var command: String
    public var timeout: Duration
    public var stderr: String

    public var description: String {
        "\(command) did not finish within \(timeout) and was killed; its stderr ends: \(stderr.suffix(2000))"
    }
}

extension ChildProcess {
    /// A command expected to finish: the longest any one of them may take before it is killed (a hung child must
    /// fail its test with a message, never hang the suite until CI's own limit).
    public static let defaultTimeout: Duration = .seconds(600)

    /// Runs `executable` to completion without blocking a cooperative thread; output goes through files.
    /// - Throws: ``ChildProcessTimeout`` when it runs longer than `timeout` (it is killed).
    public static func run(
        _ executable: String, _ arguments: [String], input: Input = .none, environment: [String: String] = [:],
        inheritsDVPVariables: Bool = true, timeout: Duration = defaultTimeout
    ) async throws -> ProcessResult {
        let child = try ChildProcess(
            executable, arguments, environment: environment, inheritsDVPVariables: inheritsDVPVariables, input: input)
        let watchdog = Task {
            try await Task.sleep(for: timeout)
            child.signal(SIGKILL)
        }
        let status = await child.exited()
        watchdog.cancel()
        guard (try? await watchdog.value) == nil else {
            throw ChildProcessTimeout(command: child.commandLine, timeout: timeout, stderr: child.stderr)
        }
        return ProcessResult(status: status, stdoutData: child.stdoutData, stderr: child.stderr)
    }

    /// Runs `executable` to completion, blocking the calling thread (for synchronous set-up and clean-up code).
    /// - Throws: ``ChildProcessTimeout`` when it runs longer than `timeout` (it is killed).
    public static func runBlocking(
        _ executable: String, _ arguments: [String], input: Input = .none, environment: [String: String] = [:],
        timeout: Duration = defaultTimeout
    ) throws -> ProcessResult {
        let child = try ChildProcess(executable, arguments, environment: environment, input: input)
        let exited = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            child.process.waitUntilExit()
            exited.signal()
        }
        guard exited.wait(timeout: .now() + .milliseconds(Int(timeout.milliseconds))) == .success else {
            child.terminate()
            throw ChildProcessTimeout(command: child.commandLine, timeout: timeout, stderr: child.stderr)
        }
        return ProcessResult(status: child.exitStatus ?? -1, stdoutData: child.stdoutData, stderr: child.stderr)
    }
}

/// Runs a command to completion and returns its exit status and output, without blocking a cooperative thread (see
/// ``ChildProcess/run(_:_:input:environment:inheritsDVPVariables:timeout:)``).
@discardableResult
public func runCommand(
    _ executable: String, _ arguments: [String], input: String? = nil, environment: [String: String] = [:]
) async throws -> ProcessResult {
    try await ChildProcess.run(
        executable, arguments, input: input.map { .text($0) } ?? .none, environment: environment)
}
