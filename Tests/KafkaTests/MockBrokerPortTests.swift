import Kafka
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("A mock broker set down keeps its port")
struct MockBrokerPortTests {
    @Test("While a broker is down its port is held (no other socket binds it); it comes up on it and serves")
    func aDownBrokerKeepsItsPort() async throws {
        let cluster = try KafkaMockCluster(brokers: 3)
        let ports = cluster.bootstrapServers.split(separator: ",").compactMap { $0.split(separator: ":").last }
            .compactMap { Int($0) }
        try #require(ports.count == 3)
        let port = ports[1]  // broker 2
        try cluster.setBrokerDown(2)
        // librdkafka closed the listener and bound a new socket to the port at once: it holds the port while down.
        #expect(!Self.canBind(port), "broker 2's port was free while it was down")
        #expect(await onThread { RawSocket(host: "127.0.0.1", port: port) == nil }, "broker 2 accepted while down")
        try cluster.setBrokerUp(2)
        #expect(await onThread { RawSocket(host: "127.0.0.1", port: port) != nil }, "broker 2 refused once up")
        #expect(Self.canBind(port) == false)  // listening again

        try cluster.setBrokerDown(-1)
        #expect(ports.allSatisfy { !Self.canBind($0) }, "a port of the brokers set down together was free")
        try cluster.setBrokerUp(-1)
        for port in ports {
            #expect(await onThread { RawSocket(host: "127.0.0.1", port: port) != nil }, "port \(port) once up")
        }
    }

    @Test("A broker goes down and up while children are spawned beside it: the process lives on")
    func aBrokerGoesDownWhileChildrenAreSpawned() async throws {
        // Unguarded, a child spawned in the instant librdkafka closes and rebinds the listener shares it, the rebind
        // fails and librdkafka aborts this process (a few times a second here).
        let cluster = try KafkaMockCluster(brokers: 2)
        let spawners = (0..<2).map { _ in
            Task.detached {
                var spawned = 0
                while !Task.isCancelled {
                    let child = try ChildProcess("/bin/true", [], name: "true")
                    _ = await child.exited()
                    spawned += 1
                }
                return spawned
            }
        }
        let clock = ContinuousClock()
        let end = clock.now + .seconds(4)
        var cycles = 0
        while clock.now < end {
            try cluster.setBrokerDown(2)
            try cluster.setBrokerUp(2)
            cycles += 1
        }
        var spawned = 0
        for spawner in spawners {
            spawner.cancel()
            spawned += try await spawner.value
        }
        #expect(spawned > 0 && cycles > 0, "\(spawned) children spawned during \(cycles) down-and-up cycles")
        #expect(await onThread { RawSocket(host: "127.0.0.1", port: Self.port(of: 2, cluster)) != nil })
    }

    private static func port(of broker: Int, _ cluster: KafkaMockCluster) -> Int {
        Int(cluster.bootstrapServers.split(separator: ",")[broker - 1].split(separator: ":").last!)!
    }

    /// Whether a socket without `SO_REUSEADDR` can bind 127.0.0.1:`port` (then closed again).
    private static func canBind(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}
