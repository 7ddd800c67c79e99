import CMicroHTTPD
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Owns one libmicrohttpd daemon (`struct MHD_Daemon *`): its listening socket, its polling threads (an internal
/// pool, epoll on Linux) and the ``MicroHTTPDContext`` its callbacks use. The only code that starts or stops it.
///
/// Lifetime rule: the context is registered unretained (see ``MicroHTTPDContext``); this class holds it and stops
/// the daemon in ``stop()`` or `deinit` before releasing it.
final class MicroHTTPDaemon: Sendable {
    /// The bound port (the chosen one when asked for port 0).
    let port: Int
    /// The daemon handle, nil once stopped. `OpaquePointer` is not `Sendable`; the `Mutex` makes it so.
    private let handle: Mutex<OpaquePointer?>
    private let context: MicroHTTPDContext

    /// Binds and starts serving. A wildcard address binds one dual-stack IPv6 socket, or IPv4 only on a host
    /// without IPv6.
    /// - Throws: `WorkerError.configuration` with the daemon's own reason (address in use, not available, ...).
    init(address: HTTPListenAddress, limits: HTTPServer.Limits, context: MicroHTTPDContext) throws(WorkerError) {
        try limits.validate()
        var started = Self.start(address, limits: limits, context: context)
        if case .failure = started, case .wildcard(let port) = address, !Self.hostHasIPv6 {
            context.restartStartup()
            started = Self.start(.ipv4(Self.anyIPv4(port: port)), limits: limits, context: context)
        }
        switch started {
        case .success(let daemon):
            self.port = Int(cmhd_daemon_bind_port(daemon))
            self.handle = Mutex(daemon)
            self.context = context
        case .failure(let failure):
            context.deadlines.stop()
            let reasons = failure.reasons
            let reason = reasons.isEmpty ? "libmicrohttpd could not start" : reasons.joined(separator: "; ")
            throw WorkerError.configuration("http: cannot listen on \(address): \(reason)")
        }
    }

    deinit {
        stop()
    }

    /// Stops the daemon: closes the listening socket and every connection and joins the daemon threads. Safe to
    /// call more than once.
    func stop() {
        guard let daemon = handle.withLock({ $0.take() }) else { return }
        context.deadlines.stop()
        MHD_stop_daemon(daemon)
    }

    // MARK: - Starting

    private struct StartFailure: Error {
        let reasons: [String]
    }

    /// One attempt at `MHD_start_daemon`; on failure, what the daemon logged.
    private static func start(
        _ address: HTTPListenAddress, limits: HTTPServer.Limits, context: MicroHTTPDContext
    ) -> Result<OpaquePointer, StartFailure> {
        let closure = Unmanaged.passUnretained(context).toOpaque()
        var flags = MHD_USE_AUTO_INTERNAL_THREAD.rawValue | MHD_USE_ERROR_LOG.rawValue
        switch address {
        case .wildcard: flags |= MHD_USE_DUAL_STACK.rawValue
        case .ipv6: flags |= MHD_USE_IPv6.rawValue
        case .ipv4: break
        }
        let daemon = withSocketAddress(of: address) { socketAddress in
            var options: [MHD_OptionItem] = [
                // The logger first, or the daemon reports problems with the options before it on stderr.
                item(.EXTERNAL_LOGGER, unsafeBitCast(MicroHTTPDCallbacks.log, to: Int.self), closure),
                item(.CONNECTION_LIMIT, limits.maxConnections),
                item(.PER_IP_CONNECTION_LIMIT, limits.maxConnectionsPerAddress),
                item(.CONNECTION_TIMEOUT, limits.idleTimeoutSeconds),
                item(.CONNECTION_MEMORY_LIMIT, limits.memoryPerConnection),
                item(.THREAD_POOL_SIZE, limits.threads),
                item(
                    .NOTIFY_CONNECTION, unsafeBitCast(MicroHTTPDCallbacks.notifyConnection, to: Int.self),
                    closure),
            ]
            if let socketAddress { options.append(item(.SOCK_ADDR, 0, socketAddress)) }
            options.append(item(.END, 0))
            return cmhd_start_daemon(flags, address.port, MicroHTTPDCallbacks.access, closure, options)
        }
        let log = context.finishStartup()
        guard let daemon else { return .failure(StartFailure(reasons: log)) }
        return .success(daemon)
    }

    private static func item(_ option: MHD_OPTION, _ value: Int, _ pointer: UnsafeMutableRawPointer? = nil)
        -> MHD_OptionItem
    {
        MHD_OptionItem(option: option, value: value, ptr_value: pointer)
    }

    /// Calls `body` with a pointer to the `sockaddr` to bind (nil for the wildcard: the daemon binds `::`).
    private static func withSocketAddress<T>(
        of address: HTTPListenAddress, _ body: (UnsafeMutableRawPointer?) -> T
    ) -> T {
        switch address {
        case .wildcard: return body(nil)
        case .ipv4(var socketAddress): return withUnsafeMutableBytes(of: &socketAddress) { body($0.baseAddress) }
        case .ipv6(var socketAddress): return withUnsafeMutableBytes(of: &socketAddress) { body($0.baseAddress) }
        }
    }

    private static func anyIPv4(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = INADDR_ANY
        return address
    }

    /// Whether this kernel can open IPv6 sockets at all (a kernel booted with `ipv6.disable=1` cannot).
    private static var hostHasIPv6: Bool {
        let fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        close(fd)
        return true
    }
}
