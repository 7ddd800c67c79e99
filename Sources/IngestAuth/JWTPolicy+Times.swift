import Essentials
import JSON

extension JWTPolicy {
    /// Checks the NumericDates of a verified token's `claims` at `now` (seconds since 1970): `exp` (required), `nbf`
    /// and `iat` (optional), each with the ``leeway``, and the token's lifetime against ``maxLifetime``.
    /// - Throws: ``AuthenticationFailure``: `expired` past `exp` or before `nbf` (beyond the leeway); `invalid`
    ///   without a numeric `exp`, with a non-numeric `nbf` or `iat`, issued in the future (`iat` beyond the leeway),
    ///   or valid for longer than ``maxLifetime``. The messages name claims and the policy, never a claim's value.
    func checkTimes(of claims: [String: JSONValue], now: Double) throws(AuthenticationFailure) {
        let leeway = self.leeway.seconds
        guard let expires = claims["exp"]?.number else {
            throw AuthenticationFailure(.invalid, "the JWT has no numeric exp claim")
        }
        guard now - leeway < expires else {
            throw AuthenticationFailure(.expired, "the JWT expired \(Self.wholeSeconds(now - expires)) s ago (exp)")
        }
        let notBefore = try Self.optionalNumber("nbf", in: claims)
        if let notBefore, now + leeway < notBefore {
            throw AuthenticationFailure(
                .expired, "the JWT is valid only in \(Self.wholeSeconds(notBefore - now)) s (nbf)")
        }
        let issuedAt = try Self.optionalNumber("iat", in: claims)
        if let issuedAt, issuedAt > now + leeway {
            throw AuthenticationFailure(
                .invalid, "the JWT was issued \(Self.wholeSeconds(issuedAt - now)) s in the future (iat)")
        }
        // From when the issuer made it valid; without iat or nbf, from now (what is left of it must fit).
        let (start, since) =
            issuedAt.map { ($0, "after its iat") } ?? notBefore.map { ($0, "after its nbf") }
            ?? (now, "from now (it has no iat or nbf)")
        guard expires - start <= maxLifetime.seconds else {
            let bound = Self.wholeSeconds(maxLifetime.seconds)
            throw AuthenticationFailure(
                .invalid, "the JWT's exp is more than \(bound) s (the maximum lifetime) \(since)")
        }
    }

    /// The numeric claim `name`, nil when absent.
    /// - Throws: ``AuthenticationFailure`` (`invalid`) when the claim is there but not a number.
    private static func optionalNumber(
        _ name: String, in claims: [String: JSONValue]
    ) throws(AuthenticationFailure) -> Double? {
        guard let value = claims[name] else { return nil }
        guard let number = value.number else {
            throw AuthenticationFailure(.invalid, "the JWT's \(name) claim is not a number")
        }
        return number
    }

    /// `seconds` as a whole number for a message; a claim far in the past or future must not trap `Int(_:)`.
    static func wholeSeconds(_ seconds: Double) -> Int { Int(min(max(seconds, 0), 1e12).rounded(.up)) }
}
