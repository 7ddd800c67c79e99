import CKafka

/// Owns one `rd_kafka_mock_cluster_t` and the `rd_kafka_t` it is attached to (librdkafka needs one for
/// bookkeeping); the cluster is destroyed in `deinit`, before its owner handle.
/// `@unchecked Sendable`: the mock API is thread-safe (it posts operations to the cluster's own thread).
final class RDKafkaMockCluster: @unchecked Sendable {
    private let owner: RDKafkaClient
    private let cluster: OpaquePointer
    /// Comma-separated `host:port` list of the mock brokers.
    let bootstrapServers: String
    /// How many broker listeners got `TCP_NODELAY` at start (``disableNagleOnListeners()``).
    private(set) var noDelayListeners: Int

    /// `rd_kafka_mock_cluster_new` with `brokers` brokers on random loopback ports.
    init(brokers: Int) throws(KafkaError) {
        owner = try RDKafkaClient(kind: .producer, properties: [("log_level", "3")], context: nil)
        guard let cluster = rd_kafka_mock_cluster_new(owner.handle, Int32(brokers)) else {
            throw KafkaError(code: .invalidArgument, message: "rd_kafka_mock_cluster_new failed")
        }
        self.cluster = cluster
        self.bootstrapServers = String(cString: rd_kafka_mock_cluster_bootstraps(cluster))
        self.noDelayListeners = 0
        self.noDelayListeners = disableNagleOnListeners()
    }

    deinit {
        rd_kafka_mock_cluster_destroy(cluster)  // before `owner` (and its rd_kafka_t) goes away
    }

    func createTopic(_ name: String, partitions: Int, replicationFactor: Int) throws(KafkaError) {
        try check(
            rd_kafka_mock_topic_create(cluster, name, Int32(partitions), Int32(replicationFactor)),
            "create topic \(name)")
    }

    func setTopicError(_ topic: String, code: KafkaError.Code) {
        rd_kafka_mock_topic_set_error(cluster, topic, code.native)
    }

    func setPartitionLeader(topic: String, partition: Int32, broker: Int32) throws(KafkaError) {
        try check(
            rd_kafka_mock_partition_set_leader(cluster, topic, partition, broker),
            "set leader of \(topic)[\(partition)]")
    }

    /// Sets `broker` (-1: every broker) down. librdkafka 2.0.2 closes its listener and at once binds a new socket
    /// to the same port, not listening, which holds the port while the broker is down (`rdkafka_mock.c` 2092–2100;
    /// it asserts when that bind fails: when a child process spawned at that moment still shares the old listener —
    /// ``MockBrokerSpawnGate``).
    func setBrokerDown(_ broker: Int32) throws(KafkaError) {
        try check(rd_kafka_mock_broker_set_down(cluster, broker), "broker \(broker) down")
    }

    /// Sets `broker` (-1: every broker) up on its port again, its new listener without Nagle's algorithm as at
    /// start.
    func setBrokerUp(_ broker: Int32) throws(KafkaError) {
        try check(rd_kafka_mock_broker_set_up(cluster, broker), "broker \(broker) up")
        disableNagleOnListeners()
    }

    func setBrokerRTT(_ broker: Int32, milliseconds: Int) throws(KafkaError) {
        try check(rd_kafka_mock_broker_set_rtt(cluster, broker, Int32(milliseconds)), "set rtt")
    }

    func setCoordinator(keyType: String, key: String, broker: Int32) throws(KafkaError) {
        try check(rd_kafka_mock_coordinator_set(cluster, keyType, key, broker), "set coordinator of \(key)")
    }

    func pushRequestErrors(apiKey: Int16, code: KafkaError.Code, count: Int) {
        let errors = [rd_kafka_resp_err_t](repeating: code.native, count: count)
        rd_kafka_mock_push_request_errors_array(cluster, apiKey, count, errors)
    }

    func pushBrokerRequestError(broker: Int32, apiKey: Int16, code: KafkaError.Code, rttMs: Int) throws(KafkaError) {
        try check(
            ckafka_mock_broker_push_request_error_rtt(cluster, broker, apiKey, code.native, Int32(rttMs)),
            "push request error to broker \(broker)")
    }

    func clearRequestErrors(apiKey: Int16) {
        rd_kafka_mock_clear_request_errors(cluster, apiKey)
    }

    func remainingRequestErrors(broker: Int32, apiKey: Int16) throws(KafkaError) -> Int {
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
