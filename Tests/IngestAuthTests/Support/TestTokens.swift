import Essentials
import Foundation
import Hashing
import IngestAuth

/// Signed test JWTs: the claims a valid token carries, and compact serialization with a key of ``TestKeys``.
enum TestTokens {
    static let issuer = "https://idp.test/realms/dvp"
    static let audience = "dvp-ingest"
    static let policy = JWTPolicy(issuer: issuer, audience: audience)

    static var now: Int { Int(Date().timeIntervalSince1970) }

    /// The claims of a token `policy` accepts, valid for five minutes, for tenant `clinic-a` and prefix `ca-`.
    static func validClaims() -> [String: Any] {
        [
            "iss": issuer, "aud": audience, "sub": "backend-a", "iat": now, "nbf": now - 10, "exp": now + 300,
            "scope": "openid daily-values:write", "dvp_tenant": "clinic-a", "dvp_patient_prefix": "ca-",
        ]
    }

    /// The standard header for `key`: its algorithm and kid.
    static func header(_ key: TestKeyPair) -> [String: Any] { ["alg": key.algorithm, "kid": key.kid, "typ": "JWT"] }

    /// The base64url of `object`'s JSON.
    static func part(_ object: [String: Any]) throws -> String {
        Base64URL.encode([UInt8](try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])))
    }

    /// A compact JWS of `claims` under `header` (the key's standard one when nil), signed by `key` with openssl.
    static func token(
        _ key: TestKeyPair, header: [String: Any]? = nil, claims: [String: Any]? = nil, in directory: URL
    ) async throws -> String {
        let input = try part(header ?? self.header(key)) + "." + part(claims ?? validClaims())
        let signature = try await key.sign(Array(input.utf8), in: directory)
        return input + "." + Base64URL.encode(signature)
    }

    /// `claims` with `changes` applied; a nil value removes the claim.
    static func claims(_ changes: [String: Any?]) -> [String: Any] {
        var claims = validClaims()
        for (name, value) in changes { claims[name] = value }
        return claims
    }
}
