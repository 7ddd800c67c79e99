import TestSupport

/// A `/bin/sh -c` command line, as an operator would type it (the docs' `printf %s "$KEY" | sha256sum`).
enum ChildProcessShell {
    /// The command's standard output.
    /// - Throws: ``TestSetupError`` when it exits non-zero.
    static func run(_ command: String, _ environment: [String: String] = [:]) async throws -> String {
        let result = try await ChildProcess.run("/bin/sh", ["-c", command], environment: environment)
        guard result.status == 0 else { throw TestSetupError("sh -c \(command) failed: \(result.stderr)") }
        return result.stdout
    }
}
