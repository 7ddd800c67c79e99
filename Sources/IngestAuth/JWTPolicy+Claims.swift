import DailyValueContract
import Essentials

extension JWTPolicy {
    /// The scope a verified token's `claims` grant at `now` (seconds since 1970).
    /// - Throws: ``AuthenticationFailure``: `expired` past `exp` or before `nbf` (beyond the leeway); `invalid`
    ///   without a numeric `exp`, or with a non-numeric `nbf`; `wrongAudience` for another issuer or audience, a
    ///   missing scope, or a missing or unusable tenant or patient prefix claim. The messages name claims, never
    ///   their values.
    func scope(of claims: [String: JSONValue], now: Double) throws(AuthenticationFailure) -> IngestScope {
        let leeway = self.leeway.seconds
        guard let expires = claims["exp"]?.number else {
            throw AuthenticationFailure(.invalid, "the JWT has no numeric exp claim")
        }
        guard now - leeway < expires else {
            throw AuthenticationFailure(.expired, "the JWT expired \(Self.wholeSeconds(now - expires)) s ago (exp)")
        }
        if let notBefore = claims["nbf"] {
            guard let notBefore = notBefore.number else {
                throw AuthenticationFailure(.invalid, "the JWT's nbf claim is not a number")
            }
            guard now + leeway >= notBefore else {
                throw AuthenticationFailure(
                    .expired, "the JWT is valid only in \(Self.wholeSeconds(notBefore - now)) s (nbf)")
            }
        }
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

    /// `seconds` as a whole number for a message; a claim far in the past or future must not trap `Int(_:)`.
    private static func wholeSeconds(_ seconds: Double) -> Int { Int(min(max(seconds, 0), 1e12).rounded(.up)) }
}
