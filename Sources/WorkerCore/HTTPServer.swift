/// The worker's HTTP endpoint for `/metrics`, `/healthz` and `/readyz`, served by libmicrohttpd on its own threads
/// (never Swift's cooperative pool).
///
/// Hardened for probes that must answer while misbehaving clients are connected: connections are polled
/// concurrently (epoll, a pool of ``Limits/threads`` threads), each connection has an idle timeout and a deadline
/// for its whole life, the number of connections is capped (in total and per client address), and a request
/// may only be a small `GET` or `HEAD` (bigger heads get 431/414, other methods 405, bodies 413). Every response
/// carries `Cache-Control: no-store` and `Connection: close`: one request per connection.
public final class HTTPServer: Sendable {
    /// A response from the handler.
    public struct Response: Sendable {
        /// The HTTP status code.
        public var status: Int
        /// The `Content-Type` header.
        public var contentType: String
        /// The body, sent as UTF-8.
        public var body: String

        /// A response; plain text unless `contentType` says otherwise.
        public init(status: Int, contentType: String = "text/plain; charset=utf-8", body: String) {
            self.status = status
            self.contentType = contentType
            self.body = body
        }
    }

    /// Answers a `GET` or `HEAD` for a path (without the query string). It runs on a server thread, possibly on
    /// two at once, and should return quickly: a slow answer delays the other connections of its thread.
    public typealias Handler = @Sendable (_ path: String) -> Response

    private let daemon: MicroHTTPDaemon
    /// The bound port (useful with port 0).
    public var port: Int { daemon.port }

    /// Binds `address:port` with the default ``Limits`` and starts serving.
    ///
    /// `address` is an IP literal: `0.0.0.0` or `::` listen on every IPv4 and IPv6 address (one dual-stack
    /// socket), an IPv4 address on that address only, an IPv6 address (optionally in brackets) on that one only.
    /// Port 0 picks a free port (see ``port``).
    /// - Throws: `WorkerError.configuration` when the address is not an IP literal or cannot be bound (in use,
    ///   not an address of this host).
    public convenience init(address: String, port: Int, handler: @escaping Handler) throws {
        try self.init(address: address, port: port, limits: Limits(), handler: handler)
    }

    /// Binds `address:port` (see ``init(address:port:handler:)``) with explicit limits and starts serving.
    /// - Throws: `WorkerError.configuration` for an unusable address or limits.
    public init(address: String, port: Int, limits: Limits, handler: @escaping Handler) throws {
        let listen = try HTTPListenAddress(address: address, port: port)
        let context = MicroHTTPDContext(handler: handler, limits: limits)
        daemon = try MicroHTTPDaemon(address: listen, limits: limits, context: context)
    }

    /// Stops serving: closes the listening socket and every open connection, and returns once the server
    /// threads have ended. Safe to call more than once.
    public func shutdown() {
        daemon.stop()
    }
}
