extension HTTPServer {
    /// A request method: the common ones by name, any other token as ``other(_:)``. Methods are case-sensitive
    /// (RFC 9110 §9.1): `get` is ``other(_:)``, not ``get``.
    public enum Method: Sendable, Hashable, CustomStringConvertible {
        case get, head, post, put, patch, delete, options
        /// Any other method token, as sent (never one of the named methods' tokens).
        case other(String)

        /// The method for a token as it appears on the request line.
        public init(_ token: String) {
            switch token {
            case "GET": self = .get
            case "HEAD": self = .head
            case "POST": self = .post
            case "PUT": self = .put
            case "PATCH": self = .patch
            case "DELETE": self = .delete
            case "OPTIONS": self = .options
            default: self = .other(token)
            }
        }

        /// The token as sent on the request line, e.g. `GET`.
        public var token: String {
            switch self {
            case .get: return "GET"
            case .head: return "HEAD"
            case .post: return "POST"
            case .put: return "PUT"
            case .patch: return "PATCH"
            case .delete: return "DELETE"
            case .options: return "OPTIONS"
            case .other(let token): return token
            }
        }

        public var description: String { token }
    }
}
