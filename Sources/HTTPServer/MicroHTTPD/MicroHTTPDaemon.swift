import CMicroHTTPD
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Owns one libmicrohttpd daemon (`struct MHD_Daemon *`): its polling threads (an internal pool, epoll on Linux),
/// its descriptor of the listening socket and the ``MicroHTTPDContext`` its callbacks use. The only code that
/// starts or stops it.
///
/// Lifetime rule: the context is registered unretained (see ``MicroHTTPDContext``); this class holds it and stops
/// the daemon in ``stop()`` or `deinit` before releasing it. The daemon owns (and closes on stop) a duplicate of
/// the ``ListeningSocket``'s descriptor; the caller's own descriptor closes with its `ListeningSocket`, so neither
/// is closed twice whatever libmicrohttpd does with its copy on a failed start. After ``stopAccepting()`` the
/// descriptor is this class's: shut down at once (the kernel stops accepting), closed after the daemon stopped.
final class MicroHTTPDaemon: Sendable {
    /// The bound port (the chosen one when asked for port 0).
    let port: Int
    /// The daemon handle, nil once stopped. `OpaquePointer` is not `Sendable`; the `Mutex` makes it so.
    private let handle: Mutex<OpaquePointer?>
    /// The listening descriptor taken back by ``stopAccepting()``, closed once the daemon stopped.
    private let quiesced = Mutex<Int32?>(nil)
    private let context: MicroHTTPDContext

    /// Starts serving on `socket` (already bound and listening; `address` is for messages).
    /// - Throws: ``HTTPServerError`` (`startFailed`) with the daemon's own reason.
    init(
        socket: ListeningSocket, address: HTTPListenAddress, limits: HTTPServer.Limits, context: MicroHTTPDContext
    ) throws(HTTPServerError) {
        let daemon = Self.start(try socket.duplicate(), port: socket.port, limits: limits, context: context)
        let log = context.finishStartup()
        guard let daemon else {
            context.deadlines.stop()
            context.lingering.stop()
            let reason = log.isEmpty ? "libmicrohttpd could not start" : log.joined(separator: "; ")
            throw HTTPServerError(.startFailed, "cannot serve on \(address): \(reason)")
        }
        self.port = Int(socket.port)
        self.handle = Mutex(daemon)
        self.context = context
    }

    deinit {
        stop()
    }

    /// Requests begun and not yet completed (see ``MicroHTTPDContext/liveRequests``).
    var liveRequests: Int { context.liveRequests.load(ordering: .relaxed) }

    /// Sockets answered before their body was read that are still being drained.
    var lingering: Int { context.lingering.lingering }

    /// Connections cut off as too slow, by why.
    var cuts: [HTTPServer.CutReason: Int] { context.deadlines.cuts }

    /// Stops taking new connections (`MHD_quiesce_daemon`, then `shutdown(2)` of the listening socket, so the kernel
    /// refuses new clients instead of queueing them); connections already accepted are served on. Safe to call more
    /// than once.
    func stopAccepting() {
        handle.withLock { daemon in
            guard let daemon else { return }
            quiesced.withLock { quiesced in
                guard quiesced == nil else { return }
                let fd = MHD_quiesce_daemon(daemon)
                guard fd >= 0 else { return }
                _ = shutdown(fd, Int32(SHUT_RDWR))
                quiesced = fd
            }
        }
    }

    /// Stops the daemon: answers every request still waiting on a suspended connection with `waiting` (one already
    /// answered keeps its answer), waits up to 2 s for every answer to go out, closes the listening socket and every connection and joins the daemon
    /// threads. Safe to call more than once.
    func stop(answeringWaitingWith waiting: HTTPServer.Response = MicroHTTPDResponders.stopping) {
        guard let daemon = handle.withLock({ $0.take() }) else { return }
        context.deadlines.stop()
        // Every answer, the stop's or one given just before, is sent before the daemon closes every connection.
        context.responders.resumeAll(with: waiting)
        context.responders.waitForStopAnswers(grace: .seconds(2))
        MHD_stop_daemon(daemon)
        context.lingering.stop()
        if let fd = quiesced.withLock({ $0.take() }) { close(fd) }
    }

    /// Requests waiting for an answer on a suspended connection.
    var suspendedRequests: Int { context.responders.suspendedCount }

    // MARK: - Starting

    /// One `MHD_start_daemon` on the listening descriptor `fd` (the daemon's to close from here on).
    private static func start(
        _ fd: Int32, port: UInt16, limits: HTTPServer.Limits, context: MicroHTTPDContext
    ) -> OpaquePointer? {
        let closure = Unmanaged.passUnretained(context).toOpaque()
        // Suspend/resume (with the inter-thread channel it implies) lets a handler answer later from another thread.
        let flags =
            MHD_USE_AUTO_INTERNAL_THREAD.rawValue | MHD_USE_ERROR_LOG.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
        let options: [MHD_OptionItem] = [
            // The logger first, or the daemon reports problems with the options before it on stderr.
            item(.EXTERNAL_LOGGER, unsafeBitCast(MicroHTTPDCallbacks.log, to: Int.self), closure),
            item(.LISTEN_SOCKET, Int(fd)),
            item(.CONNECTION_LIMIT, limits.maxConnections),
            item(.PER_IP_CONNECTION_LIMIT, limits.maxConnectionsPerAddress),
            item(.CONNECTION_TIMEOUT, limits.idleTimeoutSeconds),
            item(.CONNECTION_MEMORY_LIMIT, limits.memoryPerConnection),
            item(.THREAD_POOL_SIZE, limits.threads),
            item(.URI_LOG_CALLBACK, unsafeBitCast(MicroHTTPDCallbacks.requestStarted, to: Int.self), closure),
            item(.NOTIFY_COMPLETED, unsafeBitCast(MicroHTTPDCallbacks.requestCompleted, to: Int.self), closure),
            item(.NOTIFY_CONNECTION, unsafeBitCast(MicroHTTPDCallbacks.notifyConnection, to: Int.self), closure),
            item(.END, 0),
        ]
        return cmhd_start_daemon(flags, port, MicroHTTPDCallbacks.access, closure, options)
    }

    private static func item(_ option: MHD_OPTION, _ value: Int, _ pointer: UnsafeMutableRawPointer? = nil)
        -> MHD_OptionItem
    {
        MHD_OptionItem(option: option, value: value, ptr_value: pointer)
    }
}
