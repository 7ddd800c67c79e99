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
/// is closed twice whatever libmicrohttpd does with its copy on a failed start.
final class MicroHTTPDaemon: Sendable {
    /// The bound port (the chosen one when asked for port 0).
    let port: Int
    /// The daemon handle, nil once stopped. `OpaquePointer` is not `Sendable`; the `Mutex` makes it so.
    private let handle: Mutex<OpaquePointer?>
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

    /// Stops the daemon: closes the listening socket and every connection and joins the daemon threads. Safe to
    /// call more than once.
    func stop() {
        guard let daemon = handle.withLock({ $0.take() }) else { return }
        context.deadlines.stop()
        MHD_stop_daemon(daemon)
    }

    // MARK: - Starting

    /// One `MHD_start_daemon` on the listening descriptor `fd` (the daemon's to close from here on).
    private static func start(
        _ fd: Int32, port: UInt16, limits: HTTPServer.Limits, context: MicroHTTPDContext
    ) -> OpaquePointer? {
        let closure = Unmanaged.passUnretained(context).toOpaque()
        let flags = MHD_USE_AUTO_INTERNAL_THREAD.rawValue | MHD_USE_ERROR_LOG.rawValue
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
