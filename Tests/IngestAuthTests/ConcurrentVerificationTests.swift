import Foundation
import Hashing
import IngestAuth
import Synchronization
import Testing

/// Many threads verify while the credential file is replaced again and again: a key present in every version is
/// never refused, no token gets another key's scope, and the replacements are picked up.
@Suite(.timeLimit(.minutes(2))) struct ConcurrentVerificationTests {
    let directory: CredentialDirectory

    init() throws { directory = try CredentialDirectory() }

    final class Tally: Sendable {
        let accepted = Atomic<Int>(0)
        let stableRefused = Atomic<Int>(0)
        let wrongScope = Atomic<Int>(0)
        let reloads = Atomic<Int>(0)
        let rotating = Atomic<Bool>(true)
    }

    private static let readers = 6
    private static let rotations = 40

    /// Runs `readers` threads calling `verify` until the rotating thread (index 0) wrote `versions` alternately
    /// `rotations` times.
    private func run(
        _ tally: Tally, versions: [() throws -> Void], verify: @escaping @Sendable (Int) -> Void
    ) async {
        nonisolated(unsafe) let versions = versions
        await onThreads(Self.readers + 1) { index in
            guard index == 0 else {
                var round = 0
                while tally.rotating.load(ordering: .relaxed) || round < 50 {
                    verify(round)
                    round += 1
                }
                return
            }
            for rotation in 0..<Self.rotations {
                try? versions[rotation % versions.count]()
                Thread.sleep(forTimeInterval: 0.005)
            }
            tally.rotating.store(false, ordering: .relaxed)
        }
    }

    @Test func apiKeysDuringRotation() async throws {
        func line(_ key: String, _ tenant: String) -> String {
            "sha256:\(SHA256.hex(Array(key.utf8))) tenant=\(tenant) patients=\(tenant)-"
        }
        let a = line("stable-key", "stable") + "\n" + line("alpha-key", "alpha") + "\n"
        let b = line("stable-key", "stable") + "\n" + line("beta-key", "beta") + "\n"
        let path = try directory.write("keys", a)
        let tally = Tally()
        let keys = try APIKeyFile(
            path: path, checkInterval: .milliseconds(1),
            onReload: { _ in tally.reloads.add(1, ordering: .relaxed) })
        let directory = self.directory
        await run(tally, versions: [{ try directory.write("keys", b) }, { try directory.write("keys", a) }]) { round in
            if (try? keys.verify("stable-key")) != IngestScope(tenant: "stable", patientPrefix: "stable-") {
                tally.stableRefused.add(1, ordering: .relaxed)
            }
            let (key, tenant) = round % 2 == 0 ? ("alpha-key", "alpha") : ("beta-key", "beta")
            if let scope = try? keys.verify(key) {
                if scope.tenant != tenant { tally.wrongScope.add(1, ordering: .relaxed) }
                tally.accepted.add(1, ordering: .relaxed)
            }
        }
        #expect(tally.stableRefused.load(ordering: .relaxed) == 0)
        #expect(tally.wrongScope.load(ordering: .relaxed) == 0)
        #expect(tally.accepted.load(ordering: .relaxed) > 0)
        #expect(tally.reloads.load(ordering: .relaxed) >= 2)
        keys.reloadIfChanged()
        // The last version written is a.
        #expect(try keys.verify("alpha-key").tenant == "alpha")
        #expect(throws: AuthenticationFailure.self) { try keys.verify("beta-key") }
        #expect(keys.lastReloadError == nil)
    }

    @Test func jwtsDuringRotation() async throws {
        let keys = try await TestKeys.shared
        let path = try directory.writeJWKS("jwks.json", [keys.rsa, keys.p256])
        let tally = Tally()
        let verifier = try JWTVerifier(
            jwksPath: path, policy: TestTokens.policy, checkInterval: .milliseconds(1),
            onReload: { _ in tally.reloads.add(1, ordering: .relaxed) })
        let stable = try await TestTokens.token(keys.rsa, in: directory.url)
        let rotated = [
            try await TestTokens.token(
                keys.p256, claims: TestTokens.claims(["dvp_tenant": "alpha"]), in: directory.url),
            try await TestTokens.token(
                keys.p256b, claims: TestTokens.claims(["dvp_tenant": "beta"]), in: directory.url),
        ]
        let directory = self.directory
        let versions: [() throws -> Void] = [
            { try directory.writeJWKS("jwks.json", [keys.rsa, keys.p256b]) },
            { try directory.writeJWKS("jwks.json", [keys.rsa, keys.p256]) },
        ]
        await run(tally, versions: versions) { round in
            if (try? verifier.verify(stable)) != IngestScope(tenant: "clinic-a", patientPrefix: "ca-") {
                tally.stableRefused.add(1, ordering: .relaxed)
            }
            if let scope = try? verifier.verify(rotated[round % 2]) {
                if scope.tenant != (round % 2 == 0 ? "alpha" : "beta") { tally.wrongScope.add(1, ordering: .relaxed) }
                tally.accepted.add(1, ordering: .relaxed)
            }
        }
        #expect(tally.stableRefused.load(ordering: .relaxed) == 0)
        #expect(tally.wrongScope.load(ordering: .relaxed) == 0)
        #expect(tally.accepted.load(ordering: .relaxed) > 0)
        #expect(tally.reloads.load(ordering: .relaxed) >= 2)
        verifier.reloadIfChanged()
        #expect(try verifier.verify(rotated[0]).tenant == "alpha")
        #expect(throws: AuthenticationFailure.self) { try verifier.verify(rotated[1]) }
    }
}
