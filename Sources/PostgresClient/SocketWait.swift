import Essentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Waits with `poll(2)` until a socket can be read or written, or a deadline passes.
///
/// The PostgreSQL connection's bounded waits are built on it: libpq's non-blocking calls say what they wait for,
/// and this waits for it no longer than the time left.
enum SocketWait {
    /// What the caller waits for.
    enum Event {
        case readable
        case writable
        /// Either (flushing a large statement while the server answers).
        case readableOrWritable
    }

    /// Waits for `event` on `socket` until `deadline`.
    /// - Returns: true when the socket is ready (or in error: the next libpq call reports it), false on timeout.
    /// - Throws: ``PostgresError`` `connection` when `socket` is invalid or `poll` fails.
    static func wait(_ socket: Int32, for event: Event, until deadline: ContinuousClock.Instant) throws -> Bool {
        guard socket >= 0 else { throw PostgresError(.connection, "the PostgreSQL connection has no socket") }
        let events: Int32 =
            switch event {
            case .readable: POLLIN
            case .writable: POLLOUT
            case .readableOrWritable: POLLIN | POLLOUT
            }
        var descriptor = pollfd(fd: socket, events: Int16(events), revents: 0)
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return false }
            // Rounded up, so that a wait reaches the deadline instead of spinning just before it; at most an hour
            // (the loop waits again).
            let ready = poll(&descriptor, 1, Int32(min(left.millisecondsRoundedUp, 3_600_000)))
            if ready > 0 { return true }
            if ready < 0 && errno != EINTR {
                throw PostgresError(.connection, "waiting on the PostgreSQL socket: poll failed (errno \(errno))")
            }
        }
    }
}
