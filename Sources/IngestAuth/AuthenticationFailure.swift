/// Why a request's credentials were refused: the text names what is wrong, never the token or key itself.
public struct AuthenticationFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// No `Authorization` header, or not of the `Bearer` scheme.
        case missing
        /// The token is not a known API key, its signature does not verify, or it cannot be parsed.
        case invalid
        /// A JWT past its `exp` or before its `nbf`.
        case expired
        /// A JWT for another audience or issuer, or without the scope claim the gateway needs.
        case wrongAudience
    }

    public var code: Code
    /// A short, token-free reason for logs and the problem document.
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The `WWW-Authenticate` value a 401 carries (RFC 6750 §3).
    public var wwwAuthenticate: String {
        switch code {
        case .missing: #"Bearer realm="dvp-ingest""#
        case .invalid, .wrongAudience: #"Bearer realm="dvp-ingest", error="invalid_token""#
        case .expired: #"Bearer realm="dvp-ingest", error="invalid_token", error_description="the token expired""#
        }
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
