extension HTTPServer {
    /// A response from the handler: status, content type, more header fields, and the body.
    ///
    /// The server adds `Connection: close` (one request per connection), `Content-Length`, and
    /// `Cache-Control: no-store` unless ``headers`` has its own `Cache-Control`. A response whose ``headers`` name
    /// `Content-Type`, `Content-Length`, `Transfer-Encoding` or `Connection`, or hold a field libmicrohttpd
    /// refuses (an empty value or one with a line break, a name with a space), or whose status is outside
    /// 200...999, is not sent: the client gets a 500 instead. A `HEAD` request gets the head only.
    public struct Response: Sendable {
        /// The HTTP status code (200...999).
        public var status: Int
        /// The `Content-Type` header; nil sends none.
        public var contentType: String?
        /// Header fields to send besides the content type, e.g. `Retry-After`, `WWW-Authenticate`, `Allow`.
        public var headers: Headers
        /// The body bytes.
        public var body: [UInt8]

        /// A response with a body of bytes.
        public init(status: Int, contentType: String? = nil, headers: Headers = [:], body: [UInt8] = []) {
            self.status = status
            self.contentType = contentType
            self.headers = headers
            self.body = body
        }

        /// A response with a text body, sent as UTF-8; plain text unless `contentType` says otherwise.
        public init(
            status: Int, contentType: String? = "text/plain; charset=utf-8", headers: Headers = [:], body: String
        ) {
            self.init(status: status, contentType: contentType, headers: headers, body: Array(body.utf8))
        }

        /// The header names the server sets itself; a handler's field of one of these makes the response a 500.
        static let serverOwnedHeaders = ["Content-Type", "Content-Length", "Transfer-Encoding", "Connection"]
    }
}
