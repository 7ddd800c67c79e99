import Dispatch
import Essentials
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Cuts off connections that are too slow: a request head not whole within ``HTTPServer/Limits/headTimeout`` of the
/// connection's start (a slowloris), a body arriving slower than ``HTTPServer/Limits/minimumBodyRate`` once the head
/// timeout has passed since the head, and any connection that outlives ``HTTPServer/Limits/connectionDeadline``.
///
/// libmicrohttpd's own timeout counts idle time only, so a client sending one byte a second keeps a connection
/// forever. This table learns every connection from the daemon's connect/close notifications and its request
/// progress from the access handler, and, from a timer on its own queue, shuts down (`shutdown(2)`, not `close`) the
/// socket of any that is too slow; the daemon then reads end-of-file and closes it the normal way. Every cut is
/// counted by why (``cuts``).
///
/// Why the fd is safe to touch: libmicrohttpd reports a connection closed *before* it closes its socket, and
/// both the removal and the `shutdown` happen under the same lock, so a listed fd is never a reused one.
final class HTTPConnectionDeadlines: Sendable {
    private struct Entry {
        let fd: Int32
        /// The current request's deadline: from the connection's start, then from each answer (keep-alive).
        var deadline: ContinuousClock.Instant
        /// The head must be whole by then; nil once it is.
        var headBy: ContinuousClock.Instant?
        /// When the head arrived, while its body is being read.
        var bodyStarted: ContinuousClock.Instant?
        var bodyBytes = 0
        var cutOff = false
    }

    private let lifetime: Duration
    private let headTimeout: Duration
    /// libmicrohttpd closes a connection idle this long itself, uncounted: a kept-alive one between requests.
    private let idleTimeout: Duration
    private let minimumBodyRate: Int
    private let entries = Mutex<[UInt: Entry]>([:])
    private let timer: Mutex<(any DispatchSourceTimer)?>
    private let counts = Mutex<[HTTPServer.CutReason: Int]>([:])
    private let observer: (@Sendable (HTTPServer.CutReason) -> Void)?

    /// Starts the sweep timer (every 250 ms, or every quarter of the shortest bound when that is shorter).
    init(limits: HTTPServer.Limits, observer: (@Sendable (HTTPServer.CutReason) -> Void)? = nil) {
        self.lifetime = limits.connectionDeadline
        self.headTimeout = limits.headTimeout
        self.idleTimeout = .seconds(limits.idleTimeoutSeconds)
        self.minimumBodyRate = limits.minimumBodyRate
        self.observer = observer
        let queue = DispatchQueue(label: "dvp-http-deadlines")
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let interval = min(min(lifetime, headTimeout) / 4, .milliseconds(250))
        let nanoseconds = Int(interval.nanoseconds)
        timer.schedule(
            deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds),
            leeway: .milliseconds(20))
        self.timer = Mutex(timer)
        self.timer.withLock { timer in
            timer?.setEventHandler { [weak self] in self?.sweep() }
            timer?.resume()
        }
    }

    /// Connections cut off so far, by why.
    var cuts: [HTTPServer.CutReason: Int] { counts.withLock { $0 } }

    /// Records a new connection (called by the daemon's connect notification): its head is due within the head
    /// timeout.
    func opened(_ key: UInt, fd: Int32) {
        guard fd >= 0 else { return }
        let now = ContinuousClock.now
        entries.withLock { $0[key] = Entry(fd: fd, deadline: now + lifetime, headBy: now + headTimeout) }
    }

    /// The connection's request head arrived whole: its body (if any) is metered from now.
    func headArrived(_ key: UInt) {
        let now = ContinuousClock.now
        entries.withLock { entries in
            entries[key]?.headBy = nil
            entries[key]?.bodyStarted = now
            entries[key]?.bodyBytes = 0
        }
    }

    /// `bytes` more of the connection's request body arrived.
    func bodyReceived(_ key: UInt, bytes: Int) {
        entries.withLock { $0[key]?.bodyBytes += bytes }
    }

    /// The connection's request body has ended (or it has none): it is no longer metered.
    func bodyEnded(_ key: UInt) {
        entries.withLock { $0[key]?.bodyStarted = nil }
    }

    /// The connection answered and waits for its next request (keep-alive). The daemon closes it if it stays idle
    /// for the idle timeout (not a cut); a next head begun sooner is due within the head timeout after that, and the
    /// request has a deadline of its own.
    func awaitingNextRequest(_ key: UInt) {
        let now = ContinuousClock.now
        entries.withLock { entries in
            entries[key]?.headBy = now + idleTimeout + headTimeout
            entries[key]?.deadline = now + lifetime
            entries[key]?.bodyStarted = nil
        }
    }

    /// Forgets a connection (called by the daemon's close notification, before it closes the socket).
    func closed(_ key: UInt) {
        _ = entries.withLock { $0.removeValue(forKey: key) }
    }

    /// Shuts down the sockets of connections that are too slow (once each).
    func sweep(now: ContinuousClock.Instant = .now) {
        var cut: [HTTPServer.CutReason] = []
        entries.withLock { entries in
            for (key, entry) in entries where !entry.cutOff {
                guard let reason = tooSlow(entry, now: now) else { continue }
                _ = shutdown(entry.fd, Int32(SHUT_RDWR))
                entries[key]?.cutOff = true
                cut.append(reason)
            }
        }
        guard !cut.isEmpty else { return }
        counts.withLock { counts in
            for reason in cut { counts[reason, default: 0] += 1 }
        }
        if let observer { for reason in cut { observer(reason) } }
    }

    private func tooSlow(_ entry: Entry, now: ContinuousClock.Instant) -> HTTPServer.CutReason? {
        if entry.deadline <= now { return .deadline }
        if let headBy = entry.headBy, headBy <= now { return .slowHead }
        if minimumBodyRate > 0, let started = entry.bodyStarted {
            let elapsed = now - started
            if elapsed > headTimeout, Double(entry.bodyBytes) < Double(minimumBodyRate) * elapsed.seconds {
                return .slowBody
            }
        }
        return nil
    }

    /// Stops the timer; the table stays valid until the daemon has reported every connection closed.
    func stop() {
        timer.withLock { timer in
            timer?.cancel()
            timer = nil
        }
    }

    deinit {
        stop()
    }
}
