#if canImport(Glibc)
    import Glibc
#endif

/// The server's bound, listening TCP socket, made here rather than by libmicrohttpd so a failed `bind` comes back
/// with its `errno`. Closed in `deinit`; the daemon gets its own descriptor (``duplicate()``).
///
/// The socket is what libmicrohttpd would have made: close-on-exec, non-blocking, `SO_REUSEADDR`, a backlog of
/// `SOMAXCONN`; a wildcard address is one dual-stack IPv6 socket (`IPV6_V6ONLY` off), or IPv4 only on a host
/// without IPv6; an IPv6 literal accepts IPv6 only.
final class ListeningSocket {
    let fd: Int32
    /// The bound port (the chosen one when asked for port 0).
    let port: UInt16

    /// Creates, binds and listens.
    /// - Throws: ``HTTPServerError`` (`bindFailed`) with the failed call's `errno`.
    init(_ address: HTTPListenAddress) throws(HTTPServerError) {
        var address = address
        var fd = Self.socket(for: address)
        if fd < 0, errno == EAFNOSUPPORT, case .wildcard(let port) = address {
            address = .ipv4(Self.anyIPv4(port: port))
            fd = Self.socket(for: address)
        }
        guard fd >= 0 else { throw Self.failure("socket", address) }
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        switch address {
        case .wildcard, .ipv6:
            var v6only: Int32 = if case .ipv6 = address { 1 } else { 0 }
            _ = setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &v6only, socklen_t(MemoryLayout<Int32>.size))
        case .ipv4:
            break
        }
        guard Self.bind(fd, address) == 0, listen(fd, SOMAXCONN) == 0 else {
            let failure = Self.failure("bind", address)
            close(fd)
            throw failure
        }
        var bound = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &bound) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else {
            let failure = Self.failure("getsockname", address)
            close(fd)
            throw failure
        }
        self.fd = fd
        self.port = withUnsafeBytes(of: &bound) { raw in
            // sin_port and sin6_port are at the same offset, in network byte order.
            UInt16(bigEndian: raw.loadUnaligned(fromByteOffset: MemoryLayout<sa_family_t>.size, as: UInt16.self))
        }
    }

    deinit {
        close(fd)
    }

    /// A second descriptor of the same socket (close-on-exec), for libmicrohttpd to own and close.
    /// - Throws: ``HTTPServerError`` (`startFailed`) when the process is out of descriptors.
    func duplicate() throws(HTTPServerError) -> Int32 {
        let copy = fcntl(fd, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else {
            throw HTTPServerError(.startFailed, errno: errno, "cannot duplicate the listening socket")
        }
        return copy
    }

    // MARK: - Helpers

    private static func socket(for address: HTTPListenAddress) -> Int32 {
        let family: Int32 = if case .ipv4 = address { AF_INET } else { AF_INET6 }
        let type = Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue | SOCK_NONBLOCK.rawValue)
        return Glibc.socket(family, type, 0)
    }

    private static func bind(_ fd: Int32, _ address: HTTPListenAddress) -> Int32 {
        func bind<T>(_ value: T) -> Int32 {
            withUnsafeBytes(of: value) { raw in
                Glibc.bind(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
            }
        }
        switch address {
        case .wildcard(let port):
            var any = sockaddr_in6()
            any.sin6_family = sa_family_t(AF_INET6)
            any.sin6_port = port.bigEndian
            any.sin6_addr = in6addr_any
            return bind(any)
        case .ipv4(let address): return bind(address)
        case .ipv6(let address): return bind(address)
        }
    }

    private static func anyIPv4(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = INADDR_ANY
        return address
    }

    /// The failure of `call` with the current `errno`.
    private static func failure(_ call: String, _ address: HTTPListenAddress) -> HTTPServerError {
        HTTPServerError(.bindFailed, errno: errno, "cannot listen on \(address) (\(call) failed)")
    }
}
