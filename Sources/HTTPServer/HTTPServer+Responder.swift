extension HTTPServer {
    /// What a deferred service (``HTTPServer/init(address:port:limits:admit:respond:)``) decides from a request's
    /// head alone, before any body is read.
    public enum HeadDecision<Ticket: Sendable>: Sendable {
        /// Answer at once; the body is never read (405, 401, 415, 429, …).
        case respond(Response)
        /// Read the body (within the limits) and hand the request to the handler with this ticket. The server keeps
        /// the ticket until the request has ended however it ended (answered, the client gone, the server stopping)
        /// and then drops it: a class whose `deinit` releases what the request held is the way to never leak it. A
        /// ticket that is a ``BodyMeter`` is told the body bytes held as they arrive, and may refuse the body.
        case proceed(Ticket)
    }

    /// The one answer to a request, sent from any thread, now or later.
    ///
    /// The handler of a deferred service gets one per request. Answering before the handler returns sends the
    /// response at once; otherwise the connection is suspended (libmicrohttpd stops polling it, no server thread
    /// waits) until ``send(_:)`` resumes it. Only the first ``send(_:)`` counts. A responder released without an
    /// answer answers 500, so a lost responder never holds a connection. When the server shuts down, every request
    /// still waiting is answered 503.
    public final class Responder: Sendable {
        private let id: UInt
        private let table: MicroHTTPDResponders

        init(id: UInt, table: MicroHTTPDResponders) {
            self.id = id
            self.table = table
        }

        deinit {
            table.answer(id, Self.unanswered)
        }

        /// Sends `response` (the first call only; later ones, and calls after the request ended, are ignored).
        public func send(_ response: Response) {
            table.answer(id, response)
        }

        /// The answer of a responder released without one.
        static let unanswered = Response(status: 500, body: "the request was not answered\n")
    }
}
