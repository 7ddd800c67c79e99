import Synchronization

/// What libmicrohttpd's callbacks reach through their `void *` closure argument: the Swift handler, the
/// connection deadlines and the daemon's log while it starts.
///
/// Lifetime rule: handed to the daemon *unretained* (`Unmanaged.passUnretained`) as the closure of the access
/// handler, the connection notifier and the logger. ``MicroHTTPDaemon`` keeps it alive with a strong reference
/// and calls `MHD_stop_daemon` (which joins every daemon thread; no callback runs after it returns) before that
/// reference is released, so every callback sees a live context.
final class MicroHTTPDContext: Sendable {
    /// Called on a daemon thread, possibly on two at once; it must answer quickly (it holds up the other
    /// connections its thread polls).
    let handler: HTTPServer.Handler
    let deadlines: HTTPConnectionDeadlines
    /// The daemon's messages while it starts (why a bind failed); nil once started.
    private let startupLog = Mutex<[String]?>([])
    private static let maxStartupMessages = 16

    init(handler: @escaping HTTPServer.Handler, limits: HTTPServer.Limits) {
        self.handler = handler
        self.deadlines = HTTPConnectionDeadlines(lifetime: limits.connectionDeadline)
    }

    /// Keeps a daemon message while starting; later ones (a full connection table, a client gone) are dropped,
    /// as the old server dropped them: the worker's log is structured and these are not.
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

    /// Starts another start-up phase (a second attempt to bind).
    func restartStartup() {
        startupLog.withLock { $0 = [] }
    }
}
