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

    /// The one place the configured credentials become verifiers: `APIKeyFile` for `--api-keys`, `JWTVerifier` for
    /// `--jwks` (its ``JWTPolicy`` from `--jwt-audience`, `--jwt-issuer` and `--jwt-max-lifetime`; the scope
    /// `daily-values:write` and the `dvp_tenant` / `dvp_patient_prefix` claims, docs/INGEST-AUTH.md). Both re-read
    /// their file when it changes.
    /// - Parameter onReload: told of every re-read of a credential file after start (on a request's thread: log or
    ///   count only).
    /// - Throws: ``IngestConfigurationError`` naming the option and the file's problem (never its contents).
    public static func make(
        _ options: IngestConfiguration.Authentication, onReload: (@Sendable (CredentialReload) -> Void)? = nil
    ) throws(IngestConfigurationError) -> Self {
        if options.insecureNoAuth { return .insecureNoAuth }
        var verifiers: [any BearerTokenVerifier] = []
        do throws(CredentialFileError) {
            if let path = options.apiKeysFile {
                verifiers.append(try APIKeyFile(path: path, onReload: onReload))
            }
            if let path = options.jwksFile, let audience = options.jwtAudience, let issuer = options.jwtIssuer {
                let policy = JWTPolicy(issuer: issuer, audience: audience, maxLifetime: options.jwtMaxLifetime)
                verifiers.append(try JWTVerifier(jwksPath: path, policy: policy, onReload: onReload))
            }
        } catch {
            let option = error.path == options.apiKeysFile ? "--api-keys" : "--jwks"
            throw IngestConfigurationError("\(option): \(error)")
        }
        guard !verifiers.isEmpty else {
            throw IngestConfigurationError("no credential configured (give --api-keys or --jwks)")
        }
        return .verified(Authenticator(verifiers))
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
