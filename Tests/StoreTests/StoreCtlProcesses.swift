import Foundation
import Testing
import TestSupport

/// The executables the store tests run: the built `storectl` and the test-only `dvp-test-tools`.
extension ChildProcess {
    /// The built `storectl` (see ``TestEnvironment/binDirectory``).
    static func storectl() throws -> String { try TestEnvironment.requireBinary("storectl").path }

    /// Runs `storectl` and expects exit status 0.
    @discardableResult
    static func storectl(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws
        -> ProcessResult
    {
        try await expectSuccess("storectl", arguments, sourceLocation)
    }

    /// Runs `dvp-test-tools` and expects exit status 0.
    @discardableResult
    static func testTools(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws
        -> ProcessResult
    {
        try await expectSuccess("dvp-test-tools", arguments, sourceLocation)
    }

    private static func expectSuccess(_ name: String, _ arguments: [String], _ sourceLocation: SourceLocation)
        async throws -> ProcessResult
    {
        let result = try await run(try TestEnvironment.requireBinary(name).path, arguments)
        #expect(
            result.status == 0, "\(name) \(arguments.joined(separator: " ")): \(result.standardError)",
            sourceLocation: sourceLocation)
        return result
    }
}
