import IngestAuth

/// A suite whose tokens go to a verifier of a JWKS with the RSA and the first P-256 test key, with the test policy.
protocol JWTVerifierSuite {
    var verifier: JWTVerifier { get }
}

extension JWTVerifierSuite {
    /// A temporary directory holding `jwks.json`, the shared keys, and a verifier of that file.
    static func makeVerifier() async throws -> (CredentialDirectory, TestKeys, JWTVerifier) {
        let directory = try CredentialDirectory()
        let keys = try await TestKeys.shared
        let jwks = try directory.writeJWKS("jwks.json", [keys.rsa, keys.p256])
        return (directory, keys, try JWTVerifier(jwksPath: jwks, policy: TestTokens.policy))
    }

    /// Why the verifier refuses `token`; nil when it accepts it.
    func refusal(_ token: String) -> AuthenticationFailure? {
        do {
            _ = try verifier.verify(token)
            return nil
        } catch { return error }
    }
}
