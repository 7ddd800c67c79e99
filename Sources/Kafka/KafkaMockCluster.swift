/// librdkafka's in-process mock Kafka cluster (`rdkafka_mock.h`): real Kafka protocol over TCP on 127.0.0.1,
/// with consumer groups and fault injection. **Development and tests only**: data lives in memory, each
/// partition keeps at most 5 MiB or 100,000 batches (older ones are silently dropped), and there is no
/// persistence, SASL/TLS, admin API or time-based offset lookup (librdkafka 2.0.2).
///
/// Clients in any process connect with ``bootstrapServers``. The cluster stops when this object is released.
public final class KafkaMockCluster: Sendable {
    /// Kafka protocol API keys for request error injection.
    public enum APIKey {
        public static let produce: Int16 = 0
        public static let fetch: Int16 = 1
        public static let listOffsets: Int16 = 2
        public static let metadata: Int16 = 3
        public static let offsetCommit: Int16 = 8
        public static let offsetFetch: Int16 = 9
        public static let findCoordinator: Int16 = 10
        public static let joinGroup: Int16 = 11
        public static let heartbeat: Int16 = 12
        public static let leaveGroup: Int16 = 13
        public static let syncGroup: Int16 = 14
        public static let initProducerId: Int16 = 22
    }

    private let cluster: RDKafkaMockCluster
    /// Comma-separated `host:port` list of the mock brokers.
    public var bootstrapServers: String { cluster.bootstrapServers }
    /// The number of brokers (ids 1…`brokerCount`).
    public let brokerCount: Int
    /// How many brokers answer with Nagle's algorithm off (`TCP_NODELAY`, as a real broker): `brokerCount` unless
    /// the listeners could not be found (librdkafka 2.0.2's mock leaves it on; 40 ms delayed-ACK stalls follow).
    public var noDelayBrokers: Int { cluster.noDelayListeners }

    /// Starts a cluster of `brokers` brokers (ids 1…`brokers`) listening on random loopback ports.
    /// - Throws: ``KafkaError`` when `brokers` < 1 or librdkafka cannot create the cluster.
    public init(brokers: Int = 3) throws(KafkaError) {
        guard brokers >= 1 else { throw .configuration(property: "brokers", "at least 1 broker, got \(brokers)") }
        cluster = try RDKafkaMockCluster(brokers: brokers)
        self.brokerCount = brokers
    }

    // MARK: - Topics

    /// Creates a topic (the mock has no CreateTopics API; auto-created topics get 4 partitions).
    public func createTopic(_ name: String, partitions: Int, replicationFactor: Int = 1) throws(KafkaError) {
        try cluster.createTopic(name, partitions: partitions, replicationFactor: replicationFactor)
    }

    /// Makes Metadata (and AddPartitionsToTxn) requests for `topic` fail with `code` (`.noError` clears it).
    public func setTopicError(_ topic: String, code: KafkaError.Code) {
        cluster.setTopicError(topic, code: code)
    }

    /// Moves the leadership of a partition (`nil` = leaderless).
    public func setPartitionLeader(topic: String, partition: Int32, broker: Int32?) throws(KafkaError) {
        try cluster.setPartitionLeader(topic: topic, partition: partition, broker: broker ?? -1)
    }

    // MARK: - Brokers

    /// Takes a broker down: its connections are closed and new ones refused (leadership does not move). Waits for
    /// child processes being spawned through ``MockBrokerSpawnGate/spawning(_:)`` (librdkafka aborts the process if
    /// one shares the broker's listener at that moment).
    public func setBrokerDown(_ broker: Int32) throws(KafkaError) {
        try MockBrokerSpawnGate.exclusively { () throws(KafkaError) in try cluster.setBrokerDown(broker) }
    }

    /// Brings a broker back up on the same port.
    public func setBrokerUp(_ broker: Int32) throws(KafkaError) {
        try cluster.setBrokerUp(broker)
    }

    /// Delays every response of `broker` (`nil` = all brokers) by `milliseconds`.
    public func setBrokerRTT(_ broker: Int32?, milliseconds: Int) throws(KafkaError) {
        try cluster.setBrokerRTT(broker ?? -1, milliseconds: milliseconds)
    }

    /// Sets the group (or transaction) coordinator for `key`.
    public func setCoordinator(group: String, broker: Int32, keyType: String = "group") throws(KafkaError) {
        try cluster.setCoordinator(keyType: keyType, key: group, broker: broker)
    }

    // MARK: - Request errors

    /// Makes the next `count` requests of `apiKey` (on any broker) fail with `code`. `_TRANSPORT` makes the
    /// broker disconnect the client instead.
    public func pushRequestErrors(apiKey: Int16, code: KafkaError.Code, count: Int) {
        cluster.pushRequestErrors(apiKey: apiKey, code: code, count: count)
    }

    /// Makes the next `apiKey` request to `broker` fail with `code` (`.noError` = succeed) after `rttMs` delay.
    public func pushBrokerRequestError(broker: Int32, apiKey: Int16, code: KafkaError.Code, rttMs: Int)
        throws(KafkaError)
    {
        try cluster.pushBrokerRequestError(broker: broker, apiKey: apiKey, code: code, rttMs: rttMs)
    }

    /// Clears the cluster-wide injected errors of `apiKey`.
    public func clearRequestErrors(apiKey: Int16) {
        cluster.clearRequestErrors(apiKey: apiKey)
    }

    /// How many injected errors for `apiKey` remain on `broker`.
    public func remainingRequestErrors(broker: Int32, apiKey: Int16) throws(KafkaError) -> Int {
        try cluster.remainingRequestErrors(broker: broker, apiKey: apiKey)
    }
}
