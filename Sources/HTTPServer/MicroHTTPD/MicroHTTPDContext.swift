import Synchronization

/// What libmicrohttpd's callbacks reach through their `void *` closure argument: the Swift handlers, the body
/// limit, the connection deadlines, the responders of requests answered later and the daemon's log while it starts.
///
/// Lifetime rule: handed to the daemon *unretained* (`Unmanaged.passUnretained`) as the closure of the access
/// handler, the URI logger, the completion and connection notifiers and the logger. ``MicroHTTPDaemon`` keeps it
/// alive with a strong reference and calls `MHD_stop_daemon` (which joins every daemon thread; no callback runs
/// after it returns) before that reference is released, so every callback sees a live context.
final class MicroHTTPDContext: Sendable {
    /// The head check with its ticket type erased: an answer now, or the ticket the request carries to `respond`.
    typealias Admit = @Sendable (HTTPServer.Request) -> HTTPServer.HeadDecision<any Sendable>
    /// The handler with its ticket type erased; it answers through the responder, now or later.
    typealias Respond = @Sendable (HTTPServer.Request, any Sendable, HTTPServer.Responder) -> Void

    /// Both called on a daemon thread, possibly on several at once; they must return quickly (they hold up the
    /// other connections their thread polls).
    let admit: Admit
    let respond: Respond
    /// ``HTTPServer/Limits/maxRequestBodyBytes``.
    let maxBodyBytes: Int
    let deadlines: HTTPConnectionDeadlines
    /// Where a connection answered before its body was read goes when the daemon closes it.
    let lingering: LingeringClose
    /// Connections (by address) answered before their announced body was read: lingered on when closed.
    private let answeredEarly = Mutex<Set<UInt>>([])
    /// ``HTTPServer/Limits/maxRequestsPerConnection``.
    let maxRequestsPerConnection: Int
    /// Requests begun on each open connection (by address), for ``HTTPServer/Limits/maxRequestsPerConnection``.
    private let requestsBegun = Mutex<[UInt: Int]>([:])
    let responders = MicroHTTPDResponders()
    /// Requests whose ``MicroHTTPDRequest`` is alive (begun and not yet completed); 0 once the daemon stopped.
    let liveRequests = Atomic<Int>(0)
    /// The daemon's messages while it starts (why it would not start); nil once started.
    private let startupLog = Mutex<[String]?>([])
    private static let maxStartupMessages = 16

    init(
        admit: @escaping Admit, respond: @escaping Respond, limits: HTTPServer.Limits,
        onCut: (@Sendable (HTTPServer.CutReason) -> Void)?
    ) {
        self.admit = admit
        self.respond = respond
        self.maxBodyBytes = limits.maxRequestBodyBytes
        self.maxRequestsPerConnection = limits.maxRequestsPerConnection
        self.deadlines = HTTPConnectionDeadlines(limits: limits, observer: onCut)
        self.lingering = LingeringClose(
            bound: LingeringClose.Bound(
                bytes: limits.lingerBytes, time: limits.lingerTime, sockets: limits.maxConnections))
    }

    /// Counts a request begun on `connection`; whether its answer is the connection's last (`Connection: close`).
    func beginRequest(on connection: UInt) -> Bool {
        guard maxRequestsPerConnection > 1 else { return true }
        return requestsBegun.withLock { begun in
            begun[connection, default: 0] += 1
            return begun[connection]! >= maxRequestsPerConnection
        }
    }

    /// Forgets a closed connection's request count.
    func connectionClosed(_ connection: UInt) {
        guard maxRequestsPerConnection > 1 else { return }
        _ = requestsBegun.withLock { $0.removeValue(forKey: connection) }
    }

    /// Notes that `connection` was answered before the body its head announced was read.
    func answeredBeforeBody(_ connection: UInt) {
        _ = answeredEarly.withLock { $0.insert(connection) }
    }

    /// Whether `connection`, now closing, was answered before its body was read (and forgets it).
    func closingAnsweredBeforeBody(_ connection: UInt) -> Bool {
        answeredEarly.withLock { $0.remove(connection) != nil }
    }

    /// Keeps a daemon message while starting; later ones (a full connection table, a client gone) are dropped:
    /// a server's user logs its own structured lines, and these are not.
    func log(_ message: String) {
        startupLog.withLock { log in
            if log != nil, log!.count < Self.maxStartupMessages { log!.append(message) }
        }
    }

    /// Ends the start-up phase and returns what the daemon logged in it.
    func finishStartup() -> [String] {
        startupLog.withLock { log in
            defer { log = nil }
            return log ?? []
        }
    }
}
