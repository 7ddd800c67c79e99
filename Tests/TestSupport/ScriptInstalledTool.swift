import Foundation
import Synchronization

/// An executable the tests need that a script in `scripts/` installs (a venv's python, the sekmet-fhir server):
/// the environment variable names one explicitly, else the script creates it on first use (without holding a
/// thread of Swift's cooperative pool while pip runs). Resolved once per test process.
public final class ScriptInstalledTool: Sendable {
    private let variable: String
    private let path: URL
    private let script: String
    private let fix: String
    private let resolved = Mutex<Task<URL, any Error>?>(nil)

    /// - Parameters:
    ///   - variable: e.g. `DVP_PYTHON`; when set, its value is the executable.
    ///   - path: where the script installs the executable.
    ///   - script: the name of the installing script in `scripts/`.
    ///   - fix: how to fix a failed install by hand, for the error.
    public init(variable: String, path: URL, script: String, fix: String) {
        self.variable = variable
        self.path = path
        self.script = script
        self.fix = fix
    }

    /// The executable.
    /// - Throws: ``TestSetupError`` with the command that fixes it when it cannot be found or installed.
    public func executable() async throws -> URL {
        let find = resolved.withLock { task in
            if task == nil { task = Task { try await self.find() } }
            return task!
        }
        return try await find.value
    }

    private func find() async throws -> URL {
        if let value = ProcessInfo.processInfo.environment[variable], !value.isEmpty {
            guard FileManager.default.isExecutableFile(atPath: value) else {
                throw TestSetupError("\(variable)=\(value) is not an executable")
            }
            return URL(fileURLWithPath: value)
        }
        if !FileManager.default.isExecutableFile(atPath: path.path) {
            let made = try? await ChildProcess.run(TestEnvironment.script(script), [])
            guard made?.status == 0, FileManager.default.isExecutableFile(atPath: path.path) else {
                throw TestSetupError(
                    "No \(path.path), and scripts/\(script) could not create it (\(made?.stderr ?? "did not run")). "
                        + "\(fix) (or set \(variable))")
            }
        }
        return path
    }
}
