import Foundation

/// Where the repository, its scripts and the built executables are, for every test target.
public enum TestEnvironment {
    /// The package root, from this file's path (`Tests/TestSupport/TestEnvironment.swift`).
    public static let root: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The directory holding `worker`, `producer`, `devbroker`, `storectl` and `dvp-test-tools`: `DVP_BIN_DIR`
    /// (set by `scripts/test.sh`), else the directory of the running test bundle (the `swift build --show-bin-path`
    /// directory that `swift build --build-tests` fills), else `.build/debug`.
    public static let binDirectory: URL = {
        if let dir = ProcessInfo.processInfo.environment["DVP_BIN_DIR"], !dir.isEmpty {
            return URL(fileURLWithPath: dir)
        }
        var candidate = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        while candidate.path != "/" {
            candidate.deleteLastPathComponent()
            if FileManager.default.isExecutableFile(atPath: candidate.appendingPathComponent("storectl").path) {
                return candidate
            }
        }
        return root.appendingPathComponent(".build/debug")
    }()

    /// The path of a built executable, e.g. `binary("worker")`.
    public static func binary(_ name: String) -> String { binDirectory.appendingPathComponent(name).path }

    /// The path of a built executable, or an error saying how to build it.
    /// - Throws: ``TestSetupError`` when it is missing.
    public static func requireBinary(_ name: String) throws -> URL {
        let url = binDirectory.appendingPathComponent(name)
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            throw TestSetupError(
                "\(url.path) is missing: run `swift build --build-tests` first (or the tests with `scripts/test.sh`)")
        }
        return url
    }

    /// The path of a script in `scripts/`.
    public static func script(_ name: String) -> String { root.appendingPathComponent("scripts/\(name)").path }

    /// A new temporary directory, removed by the caller (`defer { try? FileManager.default.removeItem(at:) }`).
    public static func temporaryDirectory(_ prefix: String = "dvp-test") throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }
}
