extension HTTPServer {
    /// One request as the handler sees it: the request line's parts, the header fields and the whole body.
    public struct Request: Sendable {
        public var method: Method
        /// The request target before any `?`, as sent (not percent-decoded), e.g. `/v1/daily-values`.
        public var path: String
        /// The request target after the first `?`, as sent (not decoded); nil when the target has no `?`.
        public var query: String?
        /// The header fields as they arrived (trailers of a chunked body are not included).
        public var headers: Headers
        /// The body, at most ``Limits/maxRequestBodyBytes``; empty when the request has none (and always in the
        /// `beforeBody` check, which runs before the body is read).
        public var body: [UInt8]
        /// The client's IP address (numeric; an IPv4 client of a dual-stack socket as plain IPv4), if known.
        public var remoteAddress: String?

        /// A request; the server makes these, tests of a handler may too.
        public init(
            method: Method, path: String, query: String? = nil, headers: Headers = [:], body: [UInt8] = [],
            remoteAddress: String? = nil
        ) {
            self.method = method
            self.path = path
            self.query = query
            self.headers = headers
            self.body = body
            self.remoteAddress = remoteAddress
        }

        /// A request for `target` (`path?query`) as it appears on the request line.
        init(method: Method, target: String, headers: Headers, remoteAddress: String?) {
            let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
            self.init(
                method: method, path: String(parts[0]), query: parts.count > 1 ? String(parts[1]) : nil,
                headers: headers, remoteAddress: remoteAddress)
        }
    }
}
