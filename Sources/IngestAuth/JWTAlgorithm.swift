import Hashing
import JSON

/// The JWS algorithms accepted: asymmetric signatures with SHA-256 only. `none`, the HMAC family (whose "key" an
/// attacker could take from the public JWKS: algorithm confusion) and every other algorithm are refused.
enum JWTAlgorithm: String, Sendable, CaseIterable {
    /// RSASSA-PKCS1-v1_5 with SHA-256 (RFC 7518 §3.3).
    case rs256 = "RS256"
    /// ECDSA on P-256 with SHA-256 (RFC 7518 §3.4).
    case es256 = "ES256"

    /// The algorithm a key of `kind` verifies.
    init(_ kind: SignatureVerifyingKey.Kind) {
        switch kind {
        case .rsa: self = .rs256
        case .p256: self = .es256
        }
    }

    /// The header's `alg`.
    /// - Throws: ``AuthenticationFailure`` (`invalid`) for anything but `RS256` or `ES256`, naming a registered JOSE
    ///   algorithm when it is one (never other text from the token).
    init(header: [String: JSONValue]) throws(AuthenticationFailure) {
        guard let alg = header["alg"]?.string else {
            throw AuthenticationFailure(.invalid, "the JWT header has no alg string")
        }
        guard let algorithm = JWTAlgorithm(rawValue: alg) else {
            let named = Self.registered.contains(alg) ? "alg \(alg)" : "an unregistered alg"
            throw AuthenticationFailure(.invalid, "the JWT header names \(named); only RS256 and ES256 are accepted")
        }
        self = algorithm
    }

    /// The JWS algorithm names of RFC 7518 §3.1 and RFC 8037, safe to name in a refusal.
    private static let registered: Set<String> = [
        "none", "HS256", "HS384", "HS512", "RS384", "RS512", "ES384", "ES512", "PS256", "PS384", "PS512", "EdDSA",
        "ES256K",
    ]
}
