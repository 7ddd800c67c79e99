import JSON

extension JWTPolicy {
    /// The scope a verified token's `claims` grant at `now` (seconds since 1970), once its times are checked
    /// (``checkTimes(of:now:)``).
    /// - Throws: ``AuthenticationFailure``: `expired` or `invalid` for the times (``checkTimes(of:now:)``);
    ///   `wrongAudience` for another issuer or audience, a missing scope, or a missing or unusable tenant or patient
    ///   prefix claim. The messages name claims, never their values.
    func scope(of claims: [String: JSONValue], now: Double) throws(AuthenticationFailure) -> IngestScope {
        try checkTimes(of: claims, now: now)
        guard claims["iss"]?.string == issuer else {
            throw AuthenticationFailure(.wrongAudience, "the JWT's iss is not the configured issuer")
        }
        guard claims["aud"]?.strings?.contains(audience) == true else {
            throw AuthenticationFailure(.wrongAudience, "the JWT's aud does not hold the configured audience")
        }
        let scopes = claims[scopeClaim]?.strings?.flatMap { $0.split(separator: " ").map(String.init) } ?? []
        guard scopes.contains(requiredScope) else {
            throw AuthenticationFailure(.wrongAudience, "the JWT's \(scopeClaim) claim lacks \(requiredScope)")
        }
        guard let tenant = claims[tenantClaim]?.string else {
            throw AuthenticationFailure(.wrongAudience, "the JWT has no \(tenantClaim) claim (a string)")
        }
        guard IngestScope.isValidTenant(tenant) else {
            throw AuthenticationFailure(
                .wrongAudience, "the JWT's \(tenantClaim) claim is not \(IngestScope.tenantRule)")
        }
        guard let written = claims[patientPrefixClaim]?.string else {
            throw AuthenticationFailure(.wrongAudience, "the JWT has no \(patientPrefixClaim) claim (a string)")
        }
        guard let prefix = IngestScope.patientPrefix(written: written) else {
            throw AuthenticationFailure(
                .wrongAudience, "the JWT's \(patientPrefixClaim) claim is not \(IngestScope.patientPrefixRule)")
        }
        return IngestScope(tenant: tenant, patientPrefix: prefix)
    }
}
