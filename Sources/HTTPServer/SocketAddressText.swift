#if canImport(Glibc)
    import Glibc
#endif

/// Numeric text of socket addresses (`inet_ntop`), for messages and a request's peer address.
enum SocketAddressText {
    /// The numeric host of an IPv4 or IPv6 socket address; an IPv4-mapped IPv6 address (a client of a dual-stack
    /// socket) as plain IPv4. Nil for other families.
    static func host(of address: UnsafePointer<sockaddr>) -> String? {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            var ipv4 = UnsafeRawPointer(address).loadUnaligned(as: sockaddr_in.self).sin_addr
            return text(family: AF_INET, &ipv4)
        case AF_INET6:
            var ipv6 = UnsafeRawPointer(address).loadUnaligned(as: sockaddr_in6.self).sin6_addr
            let bytes = withUnsafeBytes(of: &ipv6) { Array($0) }
            if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {
                return bytes[12...].map(String.init).joined(separator: ".")
            }
            return text(family: AF_INET6, &ipv6)
        default:
            return nil
        }
    }

    /// `inet_ntop` of an `in_addr` / `in6_addr`; `?` when it fails.
    static func text(family: Int32, _ address: UnsafeRawPointer) -> String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(family, address, &text, socklen_t(text.count)) != nil else { return "?" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
