import Hashing
import JSON

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// JWTs (JWS compact serialization) signed `RS256` or `ES256` with a key of a JWKS file; re-read when it changes.
///
/// A token is checked in this order, and the first failure decides: its shape and base64url parts; the header's
/// `alg` (`RS256` or `ES256` only: `none`, `HS*` and the rest are refused), no `crit`, a `typ` (when given) saying
/// JWT (`JWT`, `at+jwt`, either with `application/`, in any case); the key (`kid` selects it, and its type must be
/// the `alg`'s; without a `kid` exactly one key of that type must exist); the signature over `header.payload`
/// (`ES256` in JOSE's `r ‖ s` form); then the claims against the ``JWTPolicy`` (times, lifetime, issuer, audience,
/// scope, tenant, patient prefix).
/// Keys are parsed into libcrypto keys once per load of the JWKS (``JSONWebKeySet`` says which JWKs are kept). The
/// file is checked at most once per `checkInterval` and re-read when it changed; a re-read that fails keeps the keys
/// in use and is reported (``lastReloadError``, `onReload`). A key rotation is a replaced file: the new key next to
/// the old one first, the old one removed once its tokens expired (docs/INGEST-AUTH.md).
public final class JWTVerifier: BearerTokenVerifier {
    /// What tokens must say.
    public let policy: JWTPolicy
    private let keySet: ReloadingFile<JSONWebKeySet>

    /// Reads the JWKS file.
    /// - Parameters:
    ///   - jwksPath: a JSON Web Key Set (`{"keys": [...]}`) with the issuer's public keys.
    ///   - checkInterval: how often at most a request stats the file to see whether it changed.
    ///   - onReload: told of every re-read after start; called on the request's thread, so it should only log or
    ///     count.
    /// - Throws: ``CredentialFileError`` naming the file and the key that cannot be used.
    public init(
        jwksPath: String, policy: JWTPolicy, checkInterval: Duration = .seconds(1),
        onReload: (@Sendable (CredentialReload) -> Void)? = nil
    ) throws(CredentialFileError) {
        self.policy = policy
        keySet = try ReloadingFile(path: jwksPath, checkInterval: checkInterval, onReload: onReload) {
            (bytes, path) throws(CredentialFileError) in try JSONWebKeySet(parsing: bytes, path: path)
        }
    }

    /// The JWKS file's path.
    public var jwksPath: String { keySet.path }

    /// How many keys of the JWKS are in use.
    public var keyCount: Int { keySet.current().entryCount }

    /// Why the last re-read was refused (the previous keys stay in use); nil once one succeeded.
    public var lastReloadError: CredentialFileError? { keySet.lastError }

    /// Re-reads the JWKS now if it changed, without waiting for the next check; nil when it did not change.
    @discardableResult
    public func reloadIfChanged() -> CredentialReload? { keySet.reloadIfChanged() }

    /// The scope the JWT `token` grants.
    /// - Throws: ``AuthenticationFailure``: `invalid` for a malformed token, a refused algorithm or `typ`, an unknown
    ///   key, a bad signature, an `iat` in the future or a lifetime past the policy's; `expired`; `wrongAudience` for
    ///   another issuer or audience or missing scope claims.
    public func verify(_ token: String) throws(AuthenticationFailure) -> IngestScope {
        let jws = try CompactJWS(token)
        let algorithm = try JWTAlgorithm(header: jws.header)
        guard jws.header["crit"] == nil else {
            throw AuthenticationFailure(.invalid, "the JWT header has crit extensions, which are not supported")
        }
        try jws.checkType()
        let kid: String?
        switch jws.header["kid"] {
        case nil: kid = nil
        case .string(let value): kid = value
        case .some: throw AuthenticationFailure(.invalid, "the JWT header's kid is not a string")
        }
        let key = try keySet.current().key(for: algorithm, kid: kid)
        let verified = jws.signingInput.withUnsafeBytes { key.isValidSignature(jws.signature, of: $0) }
        guard verified else { throw AuthenticationFailure(.invalid, "the JWT's signature does not verify") }
        return try policy.scope(of: try jws.claims(), now: Date().timeIntervalSince1970)
    }

    /// True for tokens shaped like a JWT: three dot-separated parts.
    public func recognizes(_ token: String) -> Bool { CompactJWS.hasShape(token) }
}
