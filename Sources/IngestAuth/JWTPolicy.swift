/// What a JWT must say to be accepted, and which claims carry its scope.
///
/// The claims read: `exp` (required), `nbf` and `iat` (optional), NumericDates checked with ``leeway``, the token's
/// lifetime bounded by ``maxLifetime``; `iss` equal to ``issuer``; `aud` (a string or an array of strings) holding
/// ``audience``; ``scopeClaim`` (space-separated, or an array of strings) holding ``requiredScope``; ``tenantClaim``
/// (required, ``IngestScope/tenantRule``) and ``patientPrefixClaim`` (required, ``IngestScope/patientPrefixRule``:
/// `*` for every patient).
public struct JWTPolicy: Sendable, Equatable {
    /// The default of ``maxLifetime``: a day.
    public static let defaultMaxLifetime: Duration = .seconds(86_400)

    /// The `iss` every token must carry, e.g. `https://idp.example.org/realms/dvp`.
    public var issuer: String
    /// The `aud` (or one of them) every token must carry, e.g. `dvp-ingest`.
    public var audience: String
    /// The scope the token must grant.
    public var requiredScope: String
    /// How far `exp`, `nbf` and `iat` may be off, for clocks that disagree.
    public var leeway: Duration
    /// The longest a token may be valid: `exp` minus `iat` (or `nbf` without `iat`); without either, `exp` may be at
    /// most this far from now. A stolen token of an issuer that mints long-lived ones is refused.
    public var maxLifetime: Duration
    /// The claim listing the granted scopes.
    public var scopeClaim: String
    /// The claim naming the tenant.
    public var tenantClaim: String
    /// The claim holding the patient-id prefix.
    public var patientPrefixClaim: String

    public init(
        issuer: String, audience: String, requiredScope: String = "daily-values:write", leeway: Duration = .seconds(60),
        maxLifetime: Duration = Self.defaultMaxLifetime, scopeClaim: String = "scope",
        tenantClaim: String = "dvp_tenant", patientPrefixClaim: String = "dvp_patient_prefix"
    ) {
        self.issuer = issuer
        self.audience = audience
        self.requiredScope = requiredScope
        self.leeway = leeway
        self.maxLifetime = maxLifetime
        self.scopeClaim = scopeClaim
        self.tenantClaim = tenantClaim
        self.patientPrefixClaim = patientPrefixClaim
    }
}
