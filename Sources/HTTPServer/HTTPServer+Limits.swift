import Essentials

extension HTTPServer {
    /// What one client may cost the server. The defaults suit probes and Prometheus scrapes: a request is a
    /// request line and a few short headers without a body, answered at once, one request per connection.
    public struct Limits: Sendable {
        /// Connections served at once, over all clients; more are closed right after `accept`.
        public var maxConnections: Int
        /// Connections served at once from one client address, so one client cannot take every slot
        /// (probes from the kubelet and scrapes from Prometheus come from different addresses).
        public var maxConnectionsPerAddress: Int
        /// A connection that sends or receives nothing for this long is closed (libmicrohttpd's
        /// `MHD_OPTION_CONNECTION_TIMEOUT`, whole seconds, at least 1).
        public var idleTimeout: Duration
        /// Life of one request on its connection, counted from the connection's start and again from each answer
        /// on a kept-alive one: a client still sending, however slowly, is cut off when it runs out. The idle timeout
        /// alone does not stop a client sending a byte a second.
        public var connectionDeadline: Duration
        /// A request head must be whole within this of the connection's start: a client dripping its head (a
        /// slowloris) is cut off then, long before the connection deadline. Also the grace before a body's rate is
        /// checked (``minimumBodyRate``).
        public var headTimeout: Duration
        /// Bytes per second a request body must arrive at, on average from its head, once ``headTimeout`` has passed
        /// since the head; a slower one is cut off. 0 (the default) checks no rate.
        public var minimumBodyRate: Int
        /// Memory for one connection's request line, headers and response head, in bytes; a bigger request
        /// is answered 431 (or 414 for a long URL) and closed.
        public var memoryPerConnection: Int
        /// Threads polling the connections (libmicrohttpd's internal thread pool, epoll on Linux).
        public var threads: Int
        /// The largest request body accepted, in bytes; 0 (the default) accepts none. A request announcing a bigger
        /// `Content-Length` is answered 413 before its body is read; a chunked body is counted as it arrives and,
        /// past the limit, read to its end without being kept and answered 413 (the connection deadline bounds
        /// how long that may take). The handler never sees a body over the limit.
        public var maxRequestBodyBytes: Int
        /// After an answer sent before the request's body was read (413, 401, 415, …), how long the server goes on
        /// reading and dropping what the client still sends before it closes the connection, so that the client
        /// reads the answer instead of a reset (see ``lingerBytes``).
        public var lingerTime: Duration
        /// The most a client may send, read and dropped, while its connection lingers (see ``lingerTime``).
        public var lingerBytes: Int
        /// Requests one connection may carry (HTTP/1.1 keep-alive): the answer to the last of them says
        /// `Connection: close`. 1 (the default) closes every connection after its one request. An answer sent
        /// before the request's body was read always closes the connection.
        public var maxRequestsPerConnection: Int

        /// - Parameters: see the properties; the defaults are the worker's.
        public init(
            maxConnections: Int = 256,
            maxConnectionsPerAddress: Int = 64,
            idleTimeout: Duration = .seconds(5),
            connectionDeadline: Duration = .seconds(10),
            headTimeout: Duration = .seconds(5),
            minimumBodyRate: Int = 0,
            memoryPerConnection: Int = 8 * 1024,
            threads: Int = 2,
            maxRequestBodyBytes: Int = 0,
            lingerTime: Duration = .seconds(5),
            lingerBytes: Int = 8 << 20,
            maxRequestsPerConnection: Int = 1
        ) {
            self.maxConnections = maxConnections
            self.maxConnectionsPerAddress = maxConnectionsPerAddress
            self.idleTimeout = idleTimeout
            self.connectionDeadline = connectionDeadline
            self.headTimeout = headTimeout
            self.minimumBodyRate = minimumBodyRate
            self.memoryPerConnection = memoryPerConnection
            self.threads = threads
            self.maxRequestBodyBytes = maxRequestBodyBytes
            self.lingerTime = lingerTime
            self.lingerBytes = lingerBytes
            self.maxRequestsPerConnection = maxRequestsPerConnection
        }

        /// Rejects limits libmicrohttpd cannot apply.
        /// - Throws: ``HTTPServerError`` (`invalidLimits`) naming the limit and its rule.
        func validate() throws(HTTPServerError) {
            func require(_ ok: Bool, _ rule: String) throws(HTTPServerError) {
                if !ok { throw HTTPServerError(.invalidLimits, "limits: \(rule)") }
            }
            try require((1...65_536).contains(maxConnections), "maxConnections must be 1...65536")
            try require(
                (0...maxConnections).contains(maxConnectionsPerAddress),
                "maxConnectionsPerAddress must be 0...maxConnections (0 = no limit)")
            try require(idleTimeout >= .seconds(1), "idleTimeout must be at least 1 s")
            try require(connectionDeadline > .zero, "connectionDeadline must be positive")
            try require(headTimeout > .zero, "headTimeout must be positive")
            try require(minimumBodyRate >= 0, "minimumBodyRate must not be negative")
            try require((1024...1 << 20).contains(memoryPerConnection), "memoryPerConnection must be 1 KiB...1 MiB")
            try require((1...64).contains(threads), "threads must be 1...64")
            try require((0...1 << 30).contains(maxRequestBodyBytes), "maxRequestBodyBytes must be 0...1 GiB")
            try require(lingerTime >= .zero && lingerTime <= .seconds(60), "lingerTime must be 0...60 s")
            try require((0...1 << 30).contains(lingerBytes), "lingerBytes must be 0...1 GiB")
            try require(
                (1...1_000_000).contains(maxRequestsPerConnection), "maxRequestsPerConnection must be 1...1000000")
        }

        /// The idle timeout in whole seconds, rounded up.
        var idleTimeoutSeconds: Int { Int(idleTimeout.secondsRoundedUp) }
    }
}
