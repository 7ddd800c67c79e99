import Foundation
import Hashing
import IngestAuth
import Testing

/// The `Authorization` header through the authenticator with both verifiers, and the `WWW-Authenticate` values.
@Suite struct AuthenticatorTests {
    let directory: CredentialDirectory
    let keys: TestKeys
    let apiKeys: APIKeyFile
    let jwt: JWTVerifier
    let authenticator: Authenticator

    init() async throws {
        directory = try CredentialDirectory()
        keys = try await TestKeys.shared
        let keyLine = "sha256:\(SHA256.hex(Array("opaque-key-31".utf8)))  tenant=lab  patients=lab-"
        apiKeys = try APIKeyFile(path: try directory.write("keys", keyLine + "\n"))
        jwt = try JWTVerifier(
            jwksPath: try directory.writeJWKS("jwks.json", [keys.rsa, keys.p256]), policy: TestTokens.policy)
        authenticator = Authenticator([apiKeys, jwt])
    }

    private func failure(_ header: String?, _ authenticator: Authenticator? = nil) -> AuthenticationFailure? {
        do {
            _ = try (authenticator ?? self.authenticator).authenticate(authorization: header)
            return nil
        } catch { return error }
    }

    /// Each token goes to the verifier that recognizes it, whichever is listed first.
    @Test(arguments: [false, true])
    func aJWTGoesToTheJWTVerifierAndAKeyToTheKeyFile(jwtFirst: Bool) async throws {
        let authenticator = Authenticator(jwtFirst ? [jwt, apiKeys] : [apiKeys, jwt])
        let token = try await TestTokens.token(keys.rsa, in: directory.url)
        #expect(try authenticator.authenticate(authorization: "Bearer \(token)").tenant == "clinic-a")
        #expect(
            try authenticator.authenticate(authorization: "bearer  opaque-key-31 ")
                == IngestScope(tenant: "lab", patientPrefix: "lab-"))
        // A JWT-shaped token the JWKS does not know is refused by the JWT verifier (its reasons), not as a key.
        let unknownKid = try await TestTokens.token(keys.rsa2, in: directory.url)
        #expect(failure("Bearer \(unknownKid)", authenticator)?.message == "no key of the JWKS has the JWT's kid")
        #expect(failure("Bearer opaque-key-32", authenticator)?.message == "the bearer token is not a known API key")
        #expect(failure("Bearer a.b", authenticator)?.message == "the bearer token is not a known API key")
    }

    @Test func wwwAuthenticateSaysWhatWentWrong() async throws {
        let missing = try #require(failure(nil))
        #expect(missing.code == .missing)
        #expect(missing.wwwAuthenticate == #"Bearer realm="dvp-ingest""#)
        #expect(failure("Basic dXNlcjpwYXNz")?.code == .missing)
        #expect(failure("Bearer")?.code == .missing)
        let invalid = try #require(failure("Bearer not-a-key"))
        #expect(invalid.wwwAuthenticate == #"Bearer realm="dvp-ingest", error="invalid_token""#)
        let expiredToken = try await TestTokens.token(
            keys.p256, claims: TestTokens.claims(["exp": TestTokens.now - 3600, "nbf": nil]), in: directory.url)
        let expired = try #require(failure("Bearer \(expiredToken)"))
        #expect(expired.code == .expired)
        #expect(
            expired.wwwAuthenticate
                == #"Bearer realm="dvp-ingest", error="invalid_token", error_description="the token expired""#)
        let otherAudience = try await TestTokens.token(
            keys.p256, claims: TestTokens.claims(["aud": "billing"]), in: directory.url)
        let wrong = try #require(failure("Bearer \(otherAudience)"))
        #expect(wrong.code == .wrongAudience)
        #expect(wrong.wwwAuthenticate == #"Bearer realm="dvp-ingest", error="invalid_token""#)
    }

    @Test func theScopeDecidesWhichPatientsMaySend() async throws {
        let token = try await TestTokens.token(keys.rsa, in: directory.url)
        let scope = try authenticator.authenticate(authorization: "Bearer \(token)")
        #expect(scope.allows(patient: "ca-1001"))
        #expect(!scope.allows(patient: "cb-1001"))
        #expect(!scope.allows(patient: "xca-1001"))
    }
}
