import IngestAuth

/// How the gateway decides who may send: bearer tokens checked by verifiers, or — for a local demo only — nobody
/// checked at all.
public enum IngestAuthentication: Sendable {
    /// Every request needs an `Authorization: Bearer …` token that one of the verifiers accepts.
    case verified(Authenticator)
    /// `--insecure-no-auth`: every request is accepted with ``insecureScope``; logged loudly, exported as
    /// `dvp_ingest_insecure_no_auth 1`.
    case insecureNoAuth

    /// The scope of every request without authentication: every patient, tenant `insecure-no-auth`.
    public static let insecureScope = IngestScope(tenant: "insecure-no-auth", patientPrefix: "")

    /// The one place the configured credentials become verifiers.
    /// - Throws: ``IngestConfigurationError`` when a configured verifier cannot be built. In this build the API-key
    ///   and JWT verifiers (`APIKeyFile`, `JWTVerifier`, issue 26 item 2) are not part of the `IngestAuth` target
    ///   yet: `--api-keys` and `--jwks` are refused with a message saying so, and only `--insecure-no-auth` starts.
    public static func make(_ options: IngestConfiguration.Authentication) throws(IngestConfigurationError) -> Self {
        if options.insecureNoAuth { return .insecureNoAuth }
        // The verifiers of the other branch are appended here: `APIKeyFile` for --api-keys, `JWTVerifier` (with
        // --jwt-audience and --jwt-issuer) for --jwks; the configuration has checked the flags already.
        let verifiers: [any BearerTokenVerifier] = []
        if options.apiKeysFile != nil {
            throw notAvailable("--api-keys", verifier: "the API-key verifier (APIKeyFile)")
        }
        if options.jwksFile != nil { throw notAvailable("--jwks", verifier: "the JWT verifier (JWTVerifier)") }
        guard !verifiers.isEmpty else {
            throw IngestConfigurationError("no credential configured (give --api-keys or --jwks)")
        }
        return .verified(Authenticator(verifiers))
    }

    private static func notAvailable(_ option: String, verifier: String) -> IngestConfigurationError {
        IngestConfigurationError(
            "\(option): \(verifier) is not available in this build (IngestAuth does not have it yet); "
                + "use --insecure-no-auth for a local demo")
    }

    /// The scope a request's `Authorization` header grants.
    /// - Throws: ``AuthenticationFailure`` for a missing or refused token.
    func scope(authorization: String?) throws(AuthenticationFailure) -> IngestScope {
        switch self {
        case .verified(let authenticator): try authenticator.authenticate(authorization: authorization)
        case .insecureNoAuth: Self.insecureScope
        }
    }
}
