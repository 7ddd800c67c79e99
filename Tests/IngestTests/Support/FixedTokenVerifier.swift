import IngestAuth

/// TEST ONLY — a real ``BearerTokenVerifier`` over a fixed table of tokens, so the gateway's authentication and scope
/// handling can be tested in-process while the product's verifiers (API-key files, JWTs) come from IngestAuth.
/// Tokens starting with `test-` are its own; `expired` ones fail as a JWT past its `exp` would.
struct FixedTokenVerifier: BearerTokenVerifier {
    var scopes: [String: IngestScope]
    var expired: Set<String> = []

    func recognizes(_ token: String) -> Bool { token.hasPrefix("test-") }

    func verify(_ token: String) throws(AuthenticationFailure) -> IngestScope {
        if expired.contains(token) { throw AuthenticationFailure(.expired, "the token expired") }
        guard let scope = scopes[token] else { throw AuthenticationFailure(.invalid, "unknown token") }
        return scope
    }
}
