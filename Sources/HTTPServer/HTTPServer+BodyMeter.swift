extension HTTPServer {
    /// A deferred service's ticket that is told, piece by piece, how many body bytes the server holds for its request,
    /// so that a bound on the bytes of every request together counts bodies without a `Content-Length` (chunked) as
    /// they arrive, not only as they were announced.
    ///
    /// The server checks whether a request's ticket (``HeadDecision/proceed(_:)``) conforms; other tickets are not
    /// told anything. Called on the connection's thread; it must return quickly.
    public protocol BodyMeter: Sendable {
        /// The server now holds `bytes` of the request's body: more after each piece that arrived, 0 once it dropped
        /// the body (past ``Limits/maxRequestBodyBytes``, or refused by this method). Not called for the body handed
        /// to the handler, which holds it from then on.
        /// - Returns: nil to go on reading; an answer to refuse the request: the body held so far is dropped (and
        ///   reported as 0), the rest is read and dropped, and this answer is sent once the body has ended (the
        ///   connection deadline bounds how long that may take); the handler never sees the request.
        func bodyHeld(_ bytes: Int) -> Response?

        /// The answer once the body passed ``Limits/maxRequestBodyBytes`` (`limit`) as it arrived (a chunked body;
        /// an announced `Content-Length` over it is the head check's to refuse); nil for the server's plain 413.
        func bodyOverLimit(_ limit: Int) -> Response?
    }
}

extension HTTPServer.BodyMeter {
    /// The server's own plain 413.
    public func bodyOverLimit(_ limit: Int) -> HTTPServer.Response? { nil }
}
