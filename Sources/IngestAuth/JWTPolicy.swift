/// What a JWT must say to be accepted, and which claims carry its scope.
///
/// The claims read: `exp` (required) and `nbf` (optional), NumericDates checked with ``leeway``; `iss` equal to
/// ``issuer``; `aud` (a string or an array of strings) holding ``audience``; ``scopeClaim`` (space-separated, or an
/// array of strings) holding ``requiredScope``; ``tenantClaim`` (required, ``IngestScope/tenantRule``) and
/// ``patientPrefixClaim`` (required, ``IngestScope/patientPrefixRule``: `*` for every patient).
public struct JWTPolicy: Sendable, Equatable {
    /// The `iss` every token must carry, e.g. `https://idp.example.org/realms/dvp`.
    public var issuer: String
    /// The `aud` (or one of them) every token must carry, e.g. `dvp-ingest`.
    public var audience: String
    /// The scope the token must grant.
    public var requiredScope: String
    /// How far `exp` and `nbf` may be off, for clocks that disagree.
    public var leeway: Duration
    /// The claim listing the granted scopes.
    public var scopeClaim: String
    /// The claim naming the tenant.
    public var tenantClaim: String
    /// The claim holding the patient-id prefix.
    public var patientPrefixClaim: String

    public init(
        issuer: String, audience: String, requiredScope: String = "daily-values:write", leeway: Duration = .seconds(60),
        scopeClaim: String = "scope", tenantClaim: String = "dvp_tenant",
        patientPrefixClaim: String = "dvp_patient_prefix"
    ) {
        self.issuer = issuer
        self.audience = audience
        self.requiredScope = requiredScope
        self.leeway = leeway
        self.scopeClaim = scopeClaim
        self.tenantClaim = tenantClaim
        self.patientPrefixClaim = patientPrefixClaim
    }
}
