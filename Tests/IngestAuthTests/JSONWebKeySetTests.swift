import Essentials
import Foundation
import IngestAuth
import Synchronization
import Testing

/// The JWKS file: which keys are kept, which files are refused at start, and a file replaced while running.
@Suite struct JSONWebKeySetTests {
    let directory: CredentialDirectory
    let keys: TestKeys

    init() async throws {
        directory = try CredentialDirectory()
        keys = try await TestKeys.shared
    }

    private func startError(_ text: String) -> CredentialFileError? {
        let path = try? directory.write("jwks.json", text)
        do {
            _ = try JWTVerifier(jwksPath: path ?? "", policy: TestTokens.policy)
            return nil
        } catch { return error }
    }

    private func json(_ members: [[String: Any]]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: ["keys": members]), as: UTF8.self)
    }

    @Test func keepsSigningKeysAndSkipsTheRest() async throws {
        let extra: [[String: Any]] = [
            ["kty": "oct", "kid": "hmac", "k": Base64URL.encode(Array("secret".utf8))],
            keys.rsa2.jwk.merging(["use": "enc"]) { $1 },
            keys.p256b.jwk.merging(["crv": "P-384"]) { $1 },
            keys.p256b.jwk.merging(["kid": "ps", "kty": "RSA", "alg": "PS256"]) { $1 },
            ["kty": "OKP", "crv": "Ed25519", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo", "kid": "ed"],
        ]
        let path = try directory.writeJWKS(
            "jwks.json", [keys.rsa], extra: extra + [keys.p256.jwk.merging(["alg": "ES256", "use": "sig"]) { $1 }])
        let verifier = try JWTVerifier(jwksPath: path, policy: TestTokens.policy)
        #expect(verifier.keyCount == 2)
        #expect(verifier.jwksPath == path)
        for key in [keys.rsa, keys.p256] {
            #expect(try verifier.verify(try await TestTokens.token(key, in: directory.url)).tenant == "clinic-a")
        }
        // The encryption key is not there to sign with, whatever the token says.
        let encryptionKeySigned = try await TestTokens.token(keys.rsa2, in: directory.url)
        #expect(throws: AuthenticationFailure(.invalid, "no key of the JWKS has the JWT's kid")) {
            try verifier.verify(encryptionKeySigned)
        }
    }

    @Test func refusesAFileWithoutUsableKeysAtStart() throws {
        #expect(
            startError(#"{"keys": []}"#)?.message
                == "has no RS256 or ES256 signing key (0 of another type, curve, algorithm or use skipped)")
        #expect(startError(try json([["kty": "oct", "k": "c2VjcmV0"]]))?.code == .malformed)
        #expect(startError("not json")?.message == "is not JSON: invalid value at byte 0")
        #expect(startError(#"{"kid": "x"}"#)?.message == "is not a JWKS: no keys array")
        #expect(
            startError(#"{"keys": [{"kty": "RSA", "kid": 7}]}"#)?.message
                == "keys[0]: kid is not a string")
        #expect(
            startError(#"{"keys": [{"kty": "EC", "kty": "RSA"}]}"#)?.message
                == "is not JSON: the member kty appears twice")
        #expect(startError(#"{"keys": ["RSA"]}"#)?.message == "keys[0]: is not an object")
        let missing = try #require(startError(try json([["kty": "RSA", "kid": "k", "e": "AQAB"]])))
        #expect(
            missing
                == CredentialFileError(
                    .malformed, path: directory.path("jwks.json"), "keys[0] (kid k): an RSA key without n"))
    }

    @Test func refusesPrivateKeyMembersWithoutShowingThem() throws {
        let secret = Base64URL.encode([UInt8](repeating: 0x5A, count: 32))
        let error = try #require(startError(try json([keys.p256.jwk.merging(["d": secret]) { $1 }])))
        #expect(
            error.message == "keys[0] (kid ec-1): holds private key members; the JWKS file must hold public keys only")
        #expect(!error.description.contains(secret))
    }

    @Test func refusesTwoKeysWithOneKid() throws {
        let error = startError(try json([keys.rsa.jwk, keys.rsa2.jwk.merging(["kid": keys.rsa.kid]) { $1 }]))
        #expect(error?.message == "keys[1] (kid rsa-1): another key has the same kid")
    }

    @Test func refusesAWeakRSAKeyAndAPointOffTheCurve() async throws {
        let weak = try await TestKeyPair.generate(.rsa, kid: "weak", rsaBits: 1024, in: directory.url)
        #expect(
            startError(try json([weak.jwk]))?.message
                == "keys[0] (kid weak): the RSA modulus has 1024 bits; at least 2048 are required")
        var offCurve = keys.p256.jwk
        let encodedY = try #require(offCurve["y"])
        var y = try #require(Base64URL.decode(encodedY))
        y[31] ^= 0x01
        offCurve["y"] = Base64URL.encode(y)
        let offCurveError = startError(try json([offCurve]))
        #expect(
            offCurveError?.message.hasPrefix(
                "keys[0] (kid ec-1): the point (x, y) is not on the P-256 curve (libcrypto: error:") == true,
            "\(String(describing: offCurveError))")
        var short = keys.p256.jwk
        short["x"] = Base64URL.encode([1, 2, 3])
        #expect(
            startError(try json([short]))?.message
                == "keys[0] (kid ec-1): a P-256 coordinate must be 32 bytes (x has 3, y has 32)")
        var notBase64 = keys.rsa.jwk
        notBase64["n"] = "abc+/="
        #expect(startError(try json([notBase64]))?.message == "keys[0] (kid rsa-1): n is not unpadded base64url")
    }

    @Test func refusesAMissingFileAtStart() {
        let path = directory.path("absent.json")
        #expect(throws: CredentialFileError(.unreadable, path: path, "cannot be opened: No such file or directory")) {
            try JWTVerifier(jwksPath: path, policy: TestTokens.policy)
        }
    }

    @Test func picksUpAReplacedFile() async throws {
        let path = try directory.writeJWKS("jwks.json", [keys.rsa])
        let reloads = Mutex<[CredentialReload]>([])
        let verifier = try JWTVerifier(
            jwksPath: path, policy: TestTokens.policy, checkInterval: .milliseconds(50),
            onReload: { event in reloads.withLock { $0.append(event) } })
        let old = try await TestTokens.token(keys.rsa, in: directory.url)
        let new = try await TestTokens.token(keys.rsa2, in: directory.url)
        #expect(try verifier.verify(old).tenant == "clinic-a")
        #expect(throws: AuthenticationFailure.self) { try verifier.verify(new) }
        // Rotation: the new key is published, then the old one withdrawn.
        try directory.writeJWKS("jwks.json", [keys.rsa2])
        try await Task.sleep(for: .milliseconds(120))
        #expect(try verifier.verify(new).tenant == "clinic-a")
        #expect(throws: AuthenticationFailure(.invalid, "no key of the JWKS has the JWT's kid")) {
            try verifier.verify(old)
        }
        #expect(reloads.withLock { $0 } == [.loaded(path: path, entries: 1)])
    }

    @Test func aBrokenReplacementKeepsTheKeysInUse() async throws {
        let path = try directory.writeJWKS("jwks.json", [keys.rsa, keys.p256])
        let reloads = Mutex<[CredentialReload]>([])
        let verifier = try JWTVerifier(
            jwksPath: path, policy: TestTokens.policy, checkInterval: .seconds(3600),
            onReload: { event in reloads.withLock { $0.append(event) } })
        let token = try await TestTokens.token(keys.p256, in: directory.url)
        try directory.write("jwks.json", #"{"keys": [{"kty": "EC", "crv": "P-256", "kid": "half"#)
        let failure = CredentialFileError(.malformed, path: path, "is not JSON: unterminated string at byte 52")
        #expect(verifier.reloadIfChanged() == .failed(failure))
        #expect(verifier.reloadIfChanged() == nil)  // reported once, until the file changes again
        #expect(verifier.lastReloadError == failure)
        #expect(verifier.keyCount == 2)
        #expect(try verifier.verify(token).tenant == "clinic-a")
        try FileManager.default.removeItem(atPath: path)
        #expect(
            verifier.reloadIfChanged()
                == .failed(CredentialFileError(.unreadable, path: path, "cannot be opened: No such file or directory")))
        try directory.writeJWKS("jwks.json", [keys.p256])
        #expect(verifier.reloadIfChanged() == .loaded(path: path, entries: 1))
        #expect(verifier.lastReloadError == nil)
        #expect(reloads.withLock { $0.count } == 3)
    }
}
