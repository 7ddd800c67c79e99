import Dispatch
import Essentials
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Cuts off connections that outlive ``HTTPServer/Limits/connectionDeadline``.
///
/// libmicrohttpd's own timeout counts idle time only, so a client sending one byte a second keeps a connection
/// forever. This table learns every connection from the daemon's connect/close notifications and, from a timer
/// on its own queue, shuts down (`shutdown(2)`, not `close`) the socket of any that is past its deadline; the
/// daemon then reads end-of-file and closes it the normal way.
///
/// Why the fd is safe to touch: libmicrohttpd reports a connection closed *before* it closes its socket, and
/// both the removal and the `shutdown` happen under the same lock, so a listed fd is never a reused one.
final class HTTPConnectionDeadlines: Sendable {
    private struct Entry {
        let fd: Int32
        let deadline: ContinuousClock.Instant
        var cutOff = false
    }

    private let lifetime: Duration
    private let entries = Mutex<[UInt: Entry]>([:])
    private let timer: Mutex<(any DispatchSourceTimer)?>

    /// Starts the sweep timer (every 250 ms, or every quarter of `lifetime` when that is shorter).
    init(lifetime: Duration) {
        self.lifetime = lifetime
        let queue = DispatchQueue(label: "dvp-http-deadlines")
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let interval = min(lifetime / 4, .milliseconds(250))
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

    /// Records a new connection (called by the daemon's connect notification).
    func opened(_ key: UInt, fd: Int32) {
        guard fd >= 0 else { return }
        let deadline = ContinuousClock.now + lifetime
        entries.withLock { $0[key] = Entry(fd: fd, deadline: deadline) }
    }

    /// Forgets a connection (called by the daemon's close notification, before it closes the socket).
    func closed(_ key: UInt) {
        _ = entries.withLock { $0.removeValue(forKey: key) }
    }

    /// Shuts down the sockets of connections past their deadline (once each).
    func sweep(now: ContinuousClock.Instant = .now) {
        entries.withLock { entries in
            for (key, entry) in entries.filter({ !$0.value.cutOff && $0.value.deadline <= now }) {
                _ = shutdown(entry.fd, Int32(SHUT_RDWR))
                entries[key]?.cutOff = true
            }
        }
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
