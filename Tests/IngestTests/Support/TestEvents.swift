import Foundation
import TestSupport

/// Valid DailyValue events for the gateway's tests, from `producer generate` (the product's own generator: every
/// metric profile, real zones, recent days), one JSON line each.
enum TestEvents {
    /// `count` valid events (seeded, so a test sees the same ones every run), as their JSON lines.
    static func lines(_ count: Int, seed: Int = 7, in directory: URL) async throws -> [String] {
        let file = directory.appendingPathComponent("generated-\(seed)-\(count).jsonl")
        let patients = max(1, count / 20)
        let result = try await runCommand(
            TestEnvironment.binary("producer"),
            ["generate", "--patients", "\(patients)", "--days", "30", "--seed", "\(seed)", "--out", file.path])
        guard result.status == 0 else { throw TestSetupError("producer generate failed: \(result.stderr)") }
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map(String.init)
        guard lines.count >= count else {
            throw TestSetupError("producer generate wrote \(lines.count) events, \(count) wanted")
        }
        return Array(lines.prefix(count))
    }

    /// The lines as one JSON array.
    static func array(_ lines: [String]) -> String { "[" + lines.joined(separator: ",\n") + "]" }

    /// The lines as NDJSON.
    static func ndjson(_ lines: [String]) -> String { lines.joined(separator: "\n") + "\n" }

    /// The `patient` of an event line.
    static func patient(_ line: String) -> String {
        let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        return object?["patient"] as? String ?? ""
    }
}
