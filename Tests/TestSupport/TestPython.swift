import Foundation

/// The Python of the test venv (FHIR validators, chart checks): `DVP_PYTHON`, else the repository's
/// `.venv/bin/python`, created on first use with `scripts/python-venv.sh` when it is missing.
public enum TestPython {
    private static let tool = ScriptInstalledTool(
        variable: "DVP_PYTHON", path: TestEnvironment.root.appendingPathComponent(".venv/bin/python"),
        script: "python-venv.sh",
        fix: "Create it with: python3 -m venv .venv && .venv/bin/pip install -r scripts/requirements-test.txt")

    /// The venv's python.
    /// - Throws: ``TestSetupError`` with the command that fixes it when the venv cannot be found or created.
    public static func executable() async throws -> URL { try await tool.executable() }
}
