import Foundation
import TestSupport

/// A temporary directory for a test's key file or JWKS, removed when released. Files are written the way an operator
/// should replace them: to a temporary name, then renamed over the old one.
final class CredentialDirectory: Sendable {
    let url: URL

    init() throws { url = try TestEnvironment.temporaryDirectory("dvp-auth") }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// The path of `name` in the directory.
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Writes `text` to `name` atomically (a new inode) and returns its path.
    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        let url = url.appendingPathComponent(name)
        try Data(text.utf8).write(to: url, options: .atomic)
        return url.path
    }

    /// Writes a JWKS of `keys`' public JWKs, then `extra` members, to `name`.
    @discardableResult
    func writeJWKS(_ name: String, _ keys: [TestKeyPair], extra: [[String: Any]] = []) throws -> String {
        let members: [[String: Any]] = keys.map { $0.jwk } + extra
        let json = try JSONSerialization.data(withJSONObject: ["keys": members], options: [.sortedKeys])
        return try write(name, String(decoding: json, as: UTF8.self))
    }
}
