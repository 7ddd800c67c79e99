import Foundation
import TestSupport

/// The key pairs the tests sign with, made once per test process (RSA key generation takes a while) in a directory
/// removed when the process exits.
struct TestKeys: Sendable {
    let rsa: TestKeyPair
    let rsa2: TestKeyPair
    let p256: TestKeyPair
    let p256b: TestKeyPair
    /// Where the keys are; tests sign in it too.
    let directory: URL

    /// The shared keys; the first caller makes them.
    static var shared: TestKeys {
        get async throws { try await making.value }
    }

    private static let making = Task {
        let directory = sharedDirectory
        atexit { try? FileManager.default.removeItem(at: sharedDirectory) }
        async let rsa = TestKeyPair.generate(.rsa, kid: "rsa-1", in: directory)
        async let rsa2 = TestKeyPair.generate(.rsa, kid: "rsa-2", in: directory)
        async let p256 = TestKeyPair.generate(.p256, kid: "ec-1", in: directory)
        async let p256b = TestKeyPair.generate(.p256, kid: "ec-2", in: directory)
        return TestKeys(
            rsa: try await rsa, rsa2: try await rsa2, p256: try await p256, p256b: try await p256b,
            directory: directory)
    }
}

private let sharedDirectory: URL = {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dvp-auth-keys-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
}()
