import CKafka

/// librdkafka's in-process mock Kafka cluster (`rdkafka_mock.h`): real Kafka protocol over TCP on 127.0.0.1,
/// with consumer groups and fault injection. **Development and tests only**: data lives in memory, each
/// partition keeps at most 5 MiB or 100,000 batches (older ones are silently dropped), and there is no
/// persistence, SASL/TLS, admin API or time-based offset lookup (librdkafka 2.0.2).
///
/// Clients in any process connect with ``bootstrapServers``. The cluster stops when this object is released.
/// `@unchecked Sendable`: the mock API is thread-safe (it posts operations to the cluster's own thread).
public final class KafkaMockCluster: @unchecked Sendable {
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

    /// The handle the mock cluster is attached to (librdkafka needs one for bookkeeping).
    private let owner: RDKafkaClient
    private let cluster: OpaquePointer
    /// Comma-separated `host:port` list of the mock brokers.
    public let bootstrapServers: String
    public let brokerCount: Int

    /// Starts a cluster of `brokers` brokers (ids 1…`brokers`) listening on random loopback ports.
    public init(brokers: Int = 3) throws(KafkaError) {
        guard brokers >= 1 else { throw .configuration(property: "brokers", "at least 1 broker, got \(brokers)") }
        owner = try RDKafkaClient(kind: .producer, properties: [("log_level", "3")], context: nil)
        guard let cluster = rd_kafka_mock_cluster_new(owner.handle, Int32(brokers)) else {
            throw KafkaError(code: .invalidArgument, message: "rd_kafka_mock_cluster_new failed")
        }
        self.cluster = cluster
        self.bootstrapServers = String(cString: rd_kafka_mock_cluster_bootstraps(cluster))
        self.brokerCount = brokers
    }

    deinit {
        rd_kafka_mock_cluster_destroy(cluster)  // before `owner` (and its rd_kafka_t) goes away
    }

    // MARK: - Topics

    /// Creates a topic (the mock has no CreateTopics API; auto-created topics get 4 partitions).
    public func createTopic(_ name: String, partitions: Int, replicationFactor: Int = 1) throws(KafkaError) {
        try check(
            rd_kafka_mock_topic_create(cluster, name, Int32(partitions), Int32(replicationFactor)),
            "create topic \(name)")
    }

    /// Makes Metadata (and AddPartitionsToTxn) requests for `topic` fail with `code` (`.noError` clears it).
    public func setTopicError(_ topic: String, code: KafkaError.Code) {
        rd_kafka_mock_topic_set_error(cluster, topic, code.native)
    }

    /// Moves the leadership of a partition (`nil` = leaderless).
    public func setPartitionLeader(topic: String, partition: Int32, broker: Int32?) throws(KafkaError) {
        try check(
            rd_kafka_mock_partition_set_leader(cluster, topic, partition, broker ?? -1),
            "set leader of \(topic)[\(partition)]")
    }

    // MARK: - Brokers

    /// Takes a broker down: its connections are closed and new ones refused (leadership does not move).
    public func setBrokerDown(_ broker: Int32) throws(KafkaError) {
        try check(rd_kafka_mock_broker_set_down(cluster, broker), "broker \(broker) down")
    }

    /// Brings a broker back up on the same port.
    public func setBrokerUp(_ broker: Int32) throws(KafkaError) {
        try check(rd_kafka_mock_broker_set_up(cluster, broker), "broker \(broker) up")
    }

    /// Delays every response of `broker` (`nil` = all brokers) by `milliseconds`.
    public func setBrokerRTT(_ broker: Int32?, milliseconds: Int) throws(KafkaError) {
        try check(rd_kafka_mock_broker_set_rtt(cluster, broker ?? -1, Int32(milliseconds)), "set rtt")
    }

    /// Sets the group (or transaction) coordinator for `key`.
    public func setCoordinator(group: String, broker: Int32, keyType: String = "group") throws(KafkaError) {
        try check(rd_kafka_mock_coordinator_set(cluster, keyType, group, broker), "set coordinator of \(group)")
    }

    // MARK: - Request errors

    /// Makes the next `count` requests of `apiKey` (on any broker) fail with `code`. `_TRANSPORT` makes the
    /// broker disconnect the client instead.
    public func pushRequestErrors(apiKey: Int16, code: KafkaError.Code, count: Int) {
        let errors = [rd_kafka_resp_err_t](repeating: code.native, count: count)
        rd_kafka_mock_push_request_errors_array(cluster, apiKey, count, errors)
    }

    /// Makes the next `apiKey` request to `broker` fail with `code` (`.noError` = succeed) after `rttMs` delay.
    public func pushBrokerRequestError(broker: Int32, apiKey: Int16, code: KafkaError.Code, rttMs: Int)
        throws(KafkaError)
    {
        try check(
            ckafka_mock_broker_push_request_error_rtt(cluster, broker, apiKey, code.native, Int32(rttMs)),
            "push request error to broker \(broker)")
    }

    /// Clears the cluster-wide injected errors of `apiKey`.
    public func clearRequestErrors(apiKey: Int16) {
        rd_kafka_mock_clear_request_errors(cluster, apiKey)
    }

    /// How many injected errors for `apiKey` remain on `broker`.
    public func remainingRequestErrors(broker: Int32, apiKey: Int16) throws(KafkaError) -> Int {
        var count = 0
        try check(rd_kafka_mock_broker_error_stack_cnt(cluster, broker, apiKey, &count), "error stack count")
        return count
    }

    private func check(_ err: rd_kafka_resp_err_t, _ operation: String) throws(KafkaError) {
        guard err == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw KafkaError(err, "\(operation): \(String(cString: rd_kafka_err2str(err)))")
        }
    }
}
