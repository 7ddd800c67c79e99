#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

extension RDKafkaMockCluster {
    /// Sets `TCP_NODELAY` on the mock brokers' listening sockets, as a real Kafka broker sets it on every
    /// connection; the connections they accept inherit it (Linux copies the option from the listener).
    ///
    /// librdkafka 2.0.2's mock brokers leave Nagle's algorithm on. A response written while an earlier one is not
    /// yet acknowledged then waits for the client's delayed ACK (40 ms on Linux), so a produce spread over several
    /// brokers waits tens of milliseconds, and a benchmark on the embedded broker measures that wait rather than
    /// the clients. The listeners are found among this process's descriptors by their port
    /// (`bootstrapServers`); returns how many were set.
    @discardableResult
    func disableNagleOnListeners() -> Int {
        let ports = Set(
            bootstrapServers.split(separator: ",").compactMap { server in
                server.split(separator: ":").last.flatMap { UInt16($0) }
            })
        guard let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else {
            return 0
        }
        var set = 0
        for name in descriptors {
            guard let fd = Int32(name), Self.isListeningTCPSocket(fd), let port = Self.localPort(fd),
                ports.contains(port)
            else { continue }
            var on: Int32 = 1
            if setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size)) == 0 {
                set += 1
            }
        }
        return set
    }

    private static func isListeningTCPSocket(_ fd: Int32) -> Bool {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &value, &length) == 0, value == 1 else { return false }
        length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_TYPE, &value, &length) == 0 else { return false }
        return value == Int32(SOCK_STREAM.rawValue)
    }

    private static func localPort(_ fd: Int32) -> UInt16? {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { return nil }
        switch Int32(address.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
            }
        case AF_INET6:
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
            }
        default:
            return nil
        }
    }
}
