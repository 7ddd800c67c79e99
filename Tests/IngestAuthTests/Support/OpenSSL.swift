import Foundation
import TestSupport

/// The `openssl` command, run without blocking a cooperative thread.
enum OpenSSL {
    /// Runs `openssl` with `arguments` and returns its standard output.
    /// - Throws: ``TestSetupError`` when it exits non-zero.
    @discardableResult
    static func run(_ arguments: [String]) async throws -> String {
        let result = try await ChildProcess.run("/usr/bin/openssl", arguments, timeout: .seconds(60))
        guard result.status == 0 else {
            throw TestSetupError("openssl \(arguments.prefix(2).joined(separator: " ")) failed: \(result.stderr)")
        }
        return result.stdout
    }
}
