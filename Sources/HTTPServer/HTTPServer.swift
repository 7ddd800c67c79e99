/// An HTTP/1.1 server over libmicrohttpd, answering on its own threads (never Swift's cooperative pool): the
/// worker's `/metrics`, `/healthz` and `/readyz`, and any other service's routes.
///
/// Hardened for endpoints that must answer while misbehaving clients are connected: connections are polled
/// concurrently (epoll, a pool of ``Limits/threads`` threads), each connection has an idle timeout and a deadline
/// for its whole life, the number of connections is capped (in total and per client address), a request head
/// is small (bigger heads get 431, a long URL 414), and a body is read only up to ``Limits/maxRequestBodyBytes``
/// (413 past it, never buffered beyond it). Every response carries `Connection: close` (one request per
/// connection) and, unless the handler sets its own, `Cache-Control: no-store`. A connection answered before its
/// body was read (413, or any early answer of the head check) closes with a lingering close: what the client still
/// sends is read and dropped, within ``Limits/lingerBytes`` and ``Limits/lingerTime``, so the client reads the
/// answer instead of a reset.
///
/// Which methods and paths exist is the caller's choice: the server answers nothing itself but those limits.
///
/// A handler either returns its response (``Handler``), or — for answers that wait on something else, such as a
/// broker's acknowledgement — answers through a ``Responder`` from any thread, later
/// (``init(address:port:limits:admit:respond:)``): the connection is suspended meanwhile, and no server thread waits.
public final class HTTPServer: Sendable {
    /// Answers a request whose head and body have arrived within the limits. It runs on a server thread,
    /// possibly on several at once, and should return quickly: a slow answer delays the other connections its
    /// thread polls. A `HEAD` request's response is sent without its body.
    public typealias Handler = @Sendable (_ request: Request) -> Response

    /// Handles a request of a deferred service: runs on a server thread like ``Handler`` (return quickly) and
    /// answers through the ``Responder``, before returning or later from any thread.
    public typealias DeferredHandler<Ticket: Sendable> =
        @Sendable (_ request: Request, _ ticket: Ticket, _ responder: Responder) -> Void

    /// Sees a request as soon as its head has arrived, before any body is read (``Request/body`` is empty):
    /// a response it returns is sent at once and the body is never read (for 405, 401, 415, 429, …); nil lets
    /// the request go on to the size check and the ``Handler``. Same threads and rules as the handler.
    public typealias HeadHandler = @Sendable (_ head: Request) -> Response?

    private let daemon: MicroHTTPDaemon
    /// The bound port (useful with port 0).
    public var port: Int { daemon.port }

    /// Binds `address:port` and starts serving.
    ///
    /// `address` is an IP literal: `0.0.0.0` or `::` listen on every IPv4 and IPv6 address (one dual-stack
    /// socket), an IPv4 address on that address only, an IPv6 address (optionally in brackets) on that one only.
    /// Port 0 picks a free port (see ``port``).
    /// - Parameters:
    ///   - limits: what one client may cost; the defaults are the worker's (no request body).
    ///   - beforeBody: an early answer from the request head alone (see ``HeadHandler``); nil for none.
    ///   - handler: answers every request that got past `beforeBody` and the limits.
    /// - Throws: ``HTTPServerError``: `invalidAddress` for an address that is not an IP literal or a port out of
    ///   range, `invalidLimits`, `bindFailed` with the `errno` (in use, not an address of this host, …),
    ///   `startFailed` when libmicrohttpd would not start.
    public convenience init(
        address: String, port: Int, limits: Limits = Limits(), beforeBody: HeadHandler? = nil,
        handler: @escaping Handler
    ) throws(HTTPServerError) {
        try self.init(
            address: address, port: port, limits: limits,
            admit: { (head: Request) -> HeadDecision<any Sendable> in
                beforeBody?(head).map { .respond($0) } ?? .proceed(())
            },
            respond: { request, _, responder in responder.send(handler(request)) }, onCut: nil)
    }

    /// Binds `address:port` and starts serving a deferred service: `admit` decides from each request's head (an
    /// answer now, or a ticket), `respond` gets the request with its body, its ticket and the ``Responder`` to
    /// answer through, now or later from any thread. Address, port and limits as in
    /// ``init(address:port:limits:beforeBody:handler:)``. `onCut` is told of every connection the server cut off
    /// as too slow (``CutReason``), on the server's timer queue (count it; return quickly).
    /// - Throws: ``HTTPServerError`` as ``init(address:port:limits:beforeBody:handler:)``.
    public convenience init<Ticket: Sendable>(
        address: String, port: Int, limits: Limits = Limits(),
        admit: @escaping @Sendable (_ head: Request) -> HeadDecision<Ticket>,
        respond: @escaping DeferredHandler<Ticket>, onCut: (@Sendable (CutReason) -> Void)? = nil
    ) throws(HTTPServerError) {
        try self.init(
            address: address, port: port, limits: limits,
            admit: { (head: Request) -> HeadDecision<any Sendable> in
                switch admit(head) {
                case .respond(let response): .respond(response)
                case .proceed(let ticket): .proceed(ticket)
                }
            },
            respond: { request, ticket, responder in
                // The ticket is always the one `admit` made for this request (the server never mixes them).
                respond(request, ticket as! Ticket, responder)
            }, onCut: onCut)
    }

    private init(
        address: String, port: Int, limits: Limits, admit: @escaping MicroHTTPDContext.Admit,
        respond: @escaping MicroHTTPDContext.Respond, onCut: (@Sendable (CutReason) -> Void)?
    ) throws(HTTPServerError) {
        try limits.validate()
        let listen = try HTTPListenAddress(address: address, port: port)
        let socket = try ListeningSocket(listen)
        let context = MicroHTTPDContext(admit: admit, respond: respond, limits: limits, onCut: onCut)
        daemon = try MicroHTTPDaemon(socket: socket, address: listen, limits: limits, context: context)
    }

    /// Requests begun and not yet completed: every one's state is released however it ended (for the tests).
    var liveRequests: Int { daemon.liveRequests }

    /// Connections answered before their body was read that are still being drained (for the tests).
    var lingering: Int { daemon.lingering }

    /// Connections cut off so far as too slow, by why.
    public var cuts: [CutReason: Int] { daemon.cuts }

    /// Requests of a deferred service waiting for their answer (their connections suspended).
    public var waitingRequests: Int { daemon.suspendedRequests }

    /// Stops taking new connections: new clients are refused, connections already accepted are served to the end
    /// (for a graceful stop: answer what is in flight, then ``shutdown()``). Safe to call more than once.
    public func stopAccepting() {
        daemon.stopAccepting()
    }

    /// Stops serving: answers every request still waiting for its ``Responder`` with `waiting` (by default 503 with
    /// `Retry-After: 1`) — a request already answered keeps its own answer — and gives every answer up to 2 s to be
    /// sent; then closes the listening socket and every open connection, and returns once the server threads have
    /// ended. Blocks the calling thread. Safe to call more than once.
    public func shutdown(answeringWaitingWith waiting: Response? = nil) {
        daemon.stop(answeringWaitingWith: waiting ?? MicroHTTPDResponders.stopping)
    }
}
