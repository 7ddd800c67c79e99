/// Turns a bearer token into the scope it grants, or refuses it (an API key file, a JWT key set, …).
public protocol BearerTokenVerifier: Sendable {
    /// The scope `token` grants.
    /// - Throws: ``AuthenticationFailure`` when this verifier does not accept the token.
    func verify(_ token: String) throws(AuthenticationFailure) -> IngestScope

    /// Whether `token` is of the form this verifier reads (e.g. three dot-separated parts for a JWT), so that the
    /// failure reported is the one of the verifier the token was meant for.
    func recognizes(_ token: String) -> Bool
}
