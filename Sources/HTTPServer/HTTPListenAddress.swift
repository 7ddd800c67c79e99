import Essentials

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// Where an ``HTTPServer`` listens: an IP literal and a port.
///
/// A wildcard (`0.0.0.0`, the default, or `::`) means every address of the host, IPv4 and IPv6 (one dual-stack
/// socket); an IPv4 literal binds that IPv4 address only, an IPv6 literal (brackets and a `%zone` allowed) that
/// IPv6 address only. Host names are not resolved: an endpoint for probes should not depend on DNS.
enum HTTPListenAddress: Sendable, CustomStringConvertible {
    /// Every IPv4 and IPv6 address.
    case wildcard(port: UInt16)
    case ipv4(sockaddr_in)
    case ipv6(sockaddr_in6)

    /// Parses a numeric address.
    /// - Throws: ``HTTPServerError`` (`invalidAddress`) when `address` is not an IP literal or `port` is out of
    ///   range; the message does not repeat the address.
    init(address: String, port: Int) throws(HTTPServerError) {
        guard let port = UInt16(exactly: port) else {
            throw HTTPServerError(.invalidAddress, "the port is out of range 0...65535")
        }
        var text = address.trimmingWhitespace()
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        if text == "0.0.0.0" || text == "::" {
            self = .wildcard(port: port)
            return
        }
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard !text.isEmpty, getaddrinfo(text, String(port), &hints, &found) == 0, let found else {
            throw HTTPServerError(
                .invalidAddress, "the listen address is not an IPv4 or IPv6 address (use 0.0.0.0 or :: for all)")
        }
        defer { freeaddrinfo(found) }
        guard let raw = found.pointee.ai_addr else {
            throw HTTPServerError(.invalidAddress, "the listen address has no usable address")
        }
        switch found.pointee.ai_family {
        case AF_INET:
            self = .ipv4(UnsafeRawPointer(raw).loadUnaligned(as: sockaddr_in.self))
        case AF_INET6:
            self = .ipv6(UnsafeRawPointer(raw).loadUnaligned(as: sockaddr_in6.self))
        default:
            throw HTTPServerError(.invalidAddress, "the listen address is neither IPv4 nor IPv6")
        }
    }

    var port: UInt16 {
        switch self {
        case .wildcard(let port): return port
        case .ipv4(let address): return UInt16(bigEndian: address.sin_port)
        case .ipv6(let address): return UInt16(bigEndian: address.sin6_port)
        }
    }

    /// `host:port` as a URL would spell it, for messages.
    var description: String {
        switch self {
        case .wildcard(let port):
            return "[::]:\(port) (all IPv4 and IPv6 addresses)"
        case .ipv4(var address):
            return "\(SocketAddressText.text(family: AF_INET, &address.sin_addr)):\(port)"
        case .ipv6(var address):
            return "[\(SocketAddressText.text(family: AF_INET6, &address.sin6_addr))]:\(port)"
        }
    }
}
