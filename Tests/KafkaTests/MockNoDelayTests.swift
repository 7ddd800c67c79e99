import Foundation
import Kafka
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("The mock brokers answer without Nagle's algorithm")
struct MockNoDelayTests {
    @Test("Every broker's listener has TCP_NODELAY, and the connections it accepts inherit it")
    func acceptedConnectionsHaveNoDelay() async throws {
        let cluster = try KafkaMockCluster(brokers: 3)
        #expect(cluster.noDelayBrokers == 3)
        let ports = cluster.bootstrapServers.split(separator: ",").compactMap { $0.split(separator: ":").last }
            .compactMap { Int($0) }
        #expect(ports.count == 3)
        for port in ports {
            // Connect and look on one thread (blocking socket calls stay off the cooperative pool).
            let found = await onThread { () -> [Bool] in
                let client = RawSocket(host: "127.0.0.1", port: port)
                let deadline = ContinuousClock.now + .seconds(10)
                var sockets = Self.acceptedSockets(localPort: port)
                while sockets.isEmpty && ContinuousClock.now < deadline {
                    Thread.sleep(forTimeInterval: 0.02)
                    sockets = Self.acceptedSockets(localPort: port)
                }
                return withExtendedLifetime(client) { sockets.map(Self.noDelay) }
            }
            #expect(!found.isEmpty, "broker on port \(port) accepted the connection")
            #expect(found.allSatisfy { $0 }, "the accepted connection on port \(port) has TCP_NODELAY")
        }
    }

    /// This process's connected (not listening) TCP sockets whose local port is `localPort`: the broker's side.
    private static func acceptedSockets(localPort: Int) -> [Int32] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.compactMap(Int32.init).filter { fd in
            var listening: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) == 0, listening == 0 else {
                return false
            }
            var address = sockaddr_in()
            var size = socklen_t(MemoryLayout<sockaddr_in>.size)
            let named = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &size) }
            }
            return named == 0 && Int32(address.sin_family) == AF_INET
                && Int(UInt16(bigEndian: address.sin_port)) == localPort
        }
    }

    private static func noDelay(_ fd: Int32) -> Bool {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &value, &length) == 0 && value != 0
    }
}
