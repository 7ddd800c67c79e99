import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The ports of mock brokers that are down, each held by a socket of ours.
///
/// librdkafka 2.0.2's `rd_kafka_mock_broker_set_down` closes the broker's listener, and `set_up` binds the same
/// port again and aborts the whole process (`rd_assert`) when that fails: any connection's ephemeral port may take
/// the freed port meanwhile (a clean-clone test run died so, "Failed to bind mock broker socket … Address already in
/// use"). While a broker is down its port is bound here (`SO_REUSEADDR` like the broker's listener, never listening),
/// so the kernel gives it to no other socket, and the broker's new listener binds beside it; the hold is closed once
/// the broker is up.
final class RDKafkaMockPortHolds: Sendable {
    /// Each broker's port, broker 1 first (the order of `rd_kafka_mock_cluster_bootstraps`).
    private let ports: [UInt16]
    /// Broker id → the descriptor holding its port.
    private let holds = Mutex<[Int32: Int32]>([:])

    /// - Parameter bootstrapServers: the cluster's `host:port` list, broker 1 first.
    init(bootstrapServers: String) {
        ports = bootstrapServers.split(separator: ",").map { UInt16($0.split(separator: ":").last ?? "") ?? 0 }
    }

    deinit {
        holds.withLock { for fd in $0.values { close(fd) } }
    }

    /// The broker ids `broker` names: itself, or every broker for -1 (as librdkafka reads it).
    func brokers(_ broker: Int32) -> [Int32] {
        broker == -1 ? (1...Int32(ports.count)).map { $0 } : [broker]
    }

    /// Binds the ports of `brokers`, just set down; a port already taken is left (``isFree(_:)`` says so).
    func hold(_ brokers: [Int32]) {
        for broker in brokers {
            guard let port = port(of: broker), holds.withLock({ $0[broker] == nil }), let fd = Self.bind(port) else {
                continue
            }
            holds.withLock { $0[broker] = fd }
        }
    }

    /// Whether `broker`'s port can be bound again: held by us, or free now.
    func isFree(_ broker: Int32) -> Bool {
        if holds.withLock({ $0[broker] != nil }) { return true }
        guard let port = port(of: broker) else { return true }  // an id librdkafka will refuse itself
        guard let probe = Self.bind(port) else { return false }
        close(probe)
        return true
    }

    /// Closes the holds of `brokers`, once they are up.
    func release(_ brokers: [Int32]) {
        let descriptors = holds.withLock { held in brokers.compactMap { held.removeValue(forKey: $0) } }
        for fd in descriptors { close(fd) }
    }

    /// The port of `broker`, when it is one of the cluster's.
    func port(of broker: Int32) -> UInt16? {
        guard broker >= 1, Int(broker) <= ports.count, ports[Int(broker) - 1] != 0 else { return nil }
        return ports[Int(broker) - 1]
    }

    /// A TCP socket bound to 127.0.0.1:`port` with `SO_REUSEADDR` (as the mock broker binds), or nil.
    private static func bind(_ port: UInt16) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var on: Int32 = 1
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let bound =
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size)) == 0
            && withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            } == 0
        guard bound else {
            close(fd)
            return nil
        }
        return fd
    }
}
