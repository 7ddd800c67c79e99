import Foundation
import Synchronization

/// The Python of the test venv (FHIR validators, chart checks): `DVP_PYTHON`, else the repository's
/// `.venv/bin/python`, created on first use with `scripts/python-venv.sh` when it is missing.
public enum TestPython {
    private static let resolved = Mutex<Result<URL, TestSetupError>?>(nil)

    /// The venv's python.
    /// - Throws: ``TestSetupError`` with the command that fixes it when the venv cannot be found or created.
    public static func executable() throws -> URL {
        try resolved.withLock { state in
            if state == nil { state = find() }
            return try state!.get()
        }
    }

    private static func find() -> Result<URL, TestSetupError> {
        if let path = ProcessInfo.processInfo.environment["DVP_PYTHON"], !path.isEmpty {
            guard FileManager.default.isExecutableFile(atPath: path) else {
                return .failure(TestSetupError("DVP_PYTHON=\(path) is not an executable"))
            }
            return .success(URL(fileURLWithPath: path))
        }
        let venv = TestEnvironment.root.appendingPathComponent(".venv/bin/python")
        if !FileManager.default.isExecutableFile(atPath: venv.path) {
            let created = try? runCommand(TestEnvironment.script("python-venv.sh"), [])
            guard created?.status == 0, FileManager.default.isExecutableFile(atPath: venv.path) else {
                return .failure(
                    TestSetupError(
                        "No validator python at \(venv.path), and scripts/python-venv.sh could not create it "
                            + "(\(created?.stderr ?? "did not run")). Create it with: python3 -m venv .venv && "
                            + ".venv/bin/pip install -r scripts/requirements-test.txt (or set DVP_PYTHON)"))
            }
        }
        return .success(venv)
    }
}
