#if canImport(Glibc)
    import Glibc
#endif

/// Why an ``HTTPServer`` could not start: what kind of failure, the system's `errno` when a socket call failed,
/// and a message naming the address or the limit.
public struct HTTPServerError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The listen address is not an IPv4 or IPv6 literal, or the port is out of range.
        case invalidAddress
        /// `socket`, `bind` or `listen` failed: the address is in use, not an address of this host, or a
        /// privileged port (``HTTPServerError/errno`` says which).
        case bindFailed
        /// A field of ``HTTPServer/Limits`` is out of its range.
        case invalidLimits
        /// libmicrohttpd would not start on the bound socket (its own messages are in the message).
        case startFailed
    }

    public var code: Code
    /// The `errno` of the failed system call (`EADDRINUSE`, `EADDRNOTAVAIL`, `EACCES`, …), for ``Code/bindFailed``.
    public var errno: Int32?
    public var message: String

    public init(_ code: Code, errno: Int32? = nil, _ message: String) {
        self.code = code
        self.errno = errno
        self.message = message
    }

    /// `HTTP server <code> error [errno N, <strerror>]: <message>`.
    public var description: String {
        let system = errno.map { " [errno \($0), \(String(cString: strerror($0)))]" } ?? ""
        return "HTTP server \(code.rawValue) error\(system): \(message)"
    }
}
