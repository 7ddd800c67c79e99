import Foundation
import Synchronization

/// The Python of the test venv (FHIR validators, chart checks): `DVP_PYTHON`, else the repository's
/// `.venv/bin/python`, created on first use with `scripts/python-venv.sh` when it is missing (without holding a
/// thread of Swift's cooperative pool while pip runs).
public enum TestPython {
    private static let resolved = Mutex<Task<URL, any Error>?>(nil)

    /// The venv's python.
    /// - Throws: ``TestSetupError`` with the command that fixes it when the venv cannot be found or created.
    public static func executable() async throws -> URL {
        let find = resolved.withLock { task in
            if task == nil { task = Task { try await Self.find() } }
            return task!
        }
        return try await find.value
    }

    private static func find() async throws -> URL {
        if let path = ProcessInfo.processInfo.environment["DVP_PYTHON"], !path.isEmpty {
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw TestSetupError("DVP_PYTHON=\(path) is not an executable")
            }
            return URL(fileURLWithPath: path)
        }
        let venv = TestEnvironment.root.appendingPathComponent(".venv/bin/python")
        if !FileManager.default.isExecutableFile(atPath: venv.path) {
            let created = try? await ChildProcess.run(TestEnvironment.script("python-venv.sh"), [])
            guard created?.status == 0, FileManager.default.isExecutableFile(atPath: venv.path) else {
                throw TestSetupError(
                    "No validator python at \(venv.path), and scripts/python-venv.sh could not create it "
                        + "(\(created?.stderr ?? "did not run")). Create it with: python3 -m venv .venv && "
                        + ".venv/bin/pip install -r scripts/requirements-test.txt (or set DVP_PYTHON)")
            }
        }
        return venv
    }
}
