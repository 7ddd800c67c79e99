/// Reads a request's `Authorization: Bearer …` header and asks the verifier the token is meant for.
public struct Authenticator: Sendable {
    private let verifiers: [any BearerTokenVerifier]

    /// - Parameter verifiers: tried in order; the first that recognizes a token decides.
    public init(_ verifiers: [any BearerTokenVerifier]) {
        self.verifiers = verifiers
    }

    /// The scope granted by the request's `Authorization` header value.
    /// - Throws: ``AuthenticationFailure``: `missing` without a bearer token, else the deciding verifier's failure.
    public func authenticate(authorization: String?) throws(AuthenticationFailure) -> IngestScope {
        guard let authorization else { throw AuthenticationFailure(.missing, "no Authorization header") }
        let parts = authorization.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw AuthenticationFailure(.missing, "the Authorization header is not a Bearer token")
        }
        // RFC 6750 §2.1: `Bearer 1*SP b64token`; spaces or tabs around the token are not part of it.
        var token = Substring(parts[1])
        while token.first == " " || token.first == "\t" { token.removeFirst() }
        while token.last == " " || token.last == "\t" { token.removeLast() }
        guard let verifier = verifiers.first(where: { $0.recognizes(String(token)) }) else {
            throw AuthenticationFailure(.invalid, "the bearer token is neither a known API key nor a JWT")
        }
        return try verifier.verify(String(token))
    }
}
