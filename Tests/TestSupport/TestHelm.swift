import Foundation

/// The real `helm` (v4, pinned) for the chart tests: `DVP_HELM`, else the repository's `.tools/bin/helm`, installed on
/// first use with `scripts/install-k8s-tools.sh` (as `scripts/check-chart.py` finds it).
public enum TestHelm {
    private static let tool = ScriptInstalledTool(
        variable: "DVP_HELM", path: TestEnvironment.root.appendingPathComponent(".tools/bin/helm"),
        script: "install-k8s-tools.sh",
        fix: "Install it with: scripts/python-venv.sh && DVP_PYTHON=.venv/bin/python scripts/install-k8s-tools.sh")

    /// The helm executable.
    /// - Throws: ``TestSetupError`` with the command that fixes it when helm cannot be found or installed.
    public static func executable() async throws -> URL { try await tool.executable() }
}
