import Foundation
import TestSupport

/// An API key file of two tenants for the gateway's tests: `good` (patients `p-`, the generator's) and `slow`
/// (patients `q-`), with their keys.
struct TenantKeys {
    let file: URL
    let good: String
    let slow: String

    /// Writes the file into `directory`.
    init(in directory: URL) async throws {
        good = "good-\(UUID().uuidString)"
        slow = "slow-\(UUID().uuidString)"
        file = directory.appendingPathComponent("api-keys")
        try Data(try await Self.lines([(good, "tenant=good  patients=p-"), (slow, "tenant=slow  patients=q-")]).utf8)
            .write(to: file)
    }

    /// Key file lines: each key's SHA-256 with its fields.
    static func lines(_ keys: [(key: String, fields: String)]) async throws -> String {
        var text = ""
        for (key, fields) in keys {
            let result = try await runCommand("/bin/sh", ["-c", "printf %s '\(key)' | sha256sum | cut -d' ' -f1"])
            text += "sha256:\(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))  \(fields)\n"
        }
        return text
    }
}
