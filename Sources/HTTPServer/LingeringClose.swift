import Dispatch
import Essentials
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// The lingering close of nginx and Apache: a socket whose request was answered before its body was read is not
/// closed while the client may still be sending, because closing a socket with unread data makes the kernel send a
/// reset, and a reset that overtakes the answer leaves the client with "connection reset" instead of the 413 (or
/// 401, 415, …) it was sent — a client that will retry forever.
///
/// A lingering socket is shut down for writing (the client reads the answer, then end-of-file), and what the client
/// still sends is read and dropped until it closes its side, until ``Bound/bytes`` were dropped, or until
/// ``Bound/time`` passed — then it is closed. One thread polls every lingering socket; past
/// ``Bound/sockets`` of them a new one is closed at once.
///
/// Ownership: ``linger(_:)`` takes a descriptor that is this object's alone from then on (the HTTP server hands it
/// a `dup` of a connection's socket, so the daemon's own `close` does not end the connection).
final class LingeringClose: Sendable {
    /// How much one lingering socket may cost.
    struct Bound: Sendable {
        /// Bytes read and dropped at most, per socket.
        var bytes: Int
        /// Time a socket lingers at most.
        var time: Duration
        /// Sockets lingering at once at most.
        var sockets: Int
    }

    private struct Lingering {
        let fd: Int32
        let deadline: ContinuousClock.Instant
        var dropped = 0
    }

    private struct State {
        var added: [Lingering] = []
        var stopping = false
        var count = 0
        /// The poll thread runs (started by the first ``linger(_:)``).
        var started = false
    }

    private let bound: Bound
    private let state = Mutex(State())
    /// The poll loop's wake-up pipe: read end polled by the loop, write end written by ``linger(_:)``/``stop()``.
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let finished = DispatchSemaphore(value: 0)
    /// Sockets closed after lingering, by why (for the tests and the server's counters).
    let closedAtEnd = Atomic<Int>(0)
    let closedAtBound = Atomic<Int>(0)

    init(bound: Bound) {
        self.bound = bound
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends {
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
                _ = fcntl(end, F_SETFL, O_NONBLOCK)
            }
        } else {
            ends = [-1, -1]
        }
        wakeRead = ends[0]
        wakeWrite = ends[1]
    }

    deinit {
        stop()
        if wakeRead >= 0 {
            close(wakeRead)
            close(wakeWrite)
        }
    }

    /// Sockets lingering now.
    var lingering: Int { state.withLock { $0.count } }

    /// Shuts `fd` down for writing and lingers on it; closes it at once when the server is stopping, when
    /// ``Bound/sockets`` sockets already linger, or when the poll thread could not start.
    func linger(_ fd: Int32) {
        _ = shutdown(fd, Int32(SHUT_WR))
        let deadline = ContinuousClock.now + bound.time
        let (taken, start) = state.withLock { state -> (Bool, Bool) in
            guard !state.stopping, wakeRead >= 0, state.count < bound.sockets else { return (false, false) }
            state.count += 1
            state.added.append(Lingering(fd: fd, deadline: deadline))
            defer { state.started = true }
            return (true, !state.started)
        }
        guard taken else {
            close(fd)
            return
        }
        if start {
            // The thread holds this object until ``stop()`` ends it.
            OSThread.start(name: "dvp-http-linger") { [self] in run() }
        }
        wake()
    }

    /// Closes every lingering socket and ends the poll thread; returns once it has ended. Safe to call more than
    /// once.
    func stop() {
        let running = state.withLock { state -> Bool in
            defer { state.stopping = true }
            return !state.stopping && state.started
        }
        guard running else { return }
        wake()
        finished.wait()
    }

    private func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    // MARK: - The poll thread

    private func run() {
        var sockets: [Lingering] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        defer {
            for socket in sockets { close(socket.fd) }
            finished.signal()
        }
        while true {
            let (added, stopping) = state.withLock { state in
                defer { state.added = [] }
                return (state.added, state.stopping)
            }
            sockets += added
            if stopping { return }
            var polled = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            polled += sockets.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            let now = ContinuousClock.now
            let wait = sockets.map { $0.deadline - now }.min().map { max($0, .zero) }
            let timeout = wait.map { Int32(min($0.millisecondsRoundedUp, 60_000)) } ?? -1
            _ = poll(&polled, nfds_t(polled.count), timeout)
            if polled[0].revents != 0 { drainWakeUps(&buffer) }
            var kept: [Lingering] = []
            for (index, var socket) in sockets.enumerated() {
                let ready = polled[index + 1].revents != 0
                switch ready ? drop(&socket, &buffer) : .open {
                case .ended: closedAtEnd.add(1, ordering: .relaxed)
                case .bound: closedAtBound.add(1, ordering: .relaxed)
                case .open:
                    if socket.deadline <= .now {
                        closedAtBound.add(1, ordering: .relaxed)
                    } else {
                        kept.append(socket)
                        continue
                    }
                }
                close(socket.fd)
                state.withLock { $0.count -= 1 }
            }
            sockets = kept
        }
    }

    private enum Outcome { case open, ended, bound }

    /// Reads and drops what the client sent; `.ended` at its end-of-file or an error, `.bound` past the bytes.
    private func drop(_ socket: inout Lingering, _ buffer: inout [UInt8]) -> Outcome {
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(socket.fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count > 0 {
                socket.dropped += count
                if socket.dropped > bound.bytes { return .bound }
                continue
            }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return .open }
            return .ended
        }
    }

    private func drainWakeUps(_ buffer: inout [UInt8]) {
        while buffer.withUnsafeMutableBytes({ read(wakeRead, $0.baseAddress, $0.count) }) > 0 {}
    }
}
