import CKafka

/// The consumer calls on an ``RDKafkaClient`` of kind `.consumer`: subscription, assignment, offsets, close. Blocking
/// ones say so and must run on a thread of their own (``RDKafkaBlocking``).
extension RDKafkaClient {
    /// Installs the consumer's callbacks (rebalance, error, statistics, log) on a new conf, before the handle
    /// exists: even the lines `rd_kafka_new` logs (`CONFWARN`) go through the log callback.
    static func installConsumerCallbacks(on conf: OpaquePointer) {
        rd_kafka_conf_set_rebalance_cb(conf, RDKafkaConsumerContext.rebalanceCallback)
        rd_kafka_conf_set_error_cb(conf, RDKafkaConsumerContext.errorCallback)
        rd_kafka_conf_set_stats_cb(conf, RDKafkaConsumerContext.statisticsCallback)
        rd_kafka_conf_set_log_cb(conf, RDKafkaConsumerContext.logCallback)
    }

    /// Serves every callback from `rd_kafka_consumer_poll` (`rd_kafka_poll_set_consumer`).
    func routeCallbacksToConsumerPoll() {
        rd_kafka_poll_set_consumer(handle)
    }

    /// `rd_kafka_subscribe` to `topics`.
    func subscribe(_ topics: [String]) throws(KafkaError) {
        let list = RDKafkaTopicPartitionList(capacity: topics.count)
        for topic in topics { list.add(KafkaTopicPartition(topic: topic, partition: -1), offset: 0) }
        let err = list.withPointer { rd_kafka_subscribe(handle, $0) }
        guard err == RD_KAFKA_RESP_ERR_NO_ERROR else { throw KafkaError(err, "subscribe to \(topics)") }
    }

    /// `rd_kafka_assign`, then pauses the partitions again when `paused` (an app- or flow-control pause holds).
    func assign(_ partitions: [KafkaTopicPartitionOffset], paused: () -> Bool) throws(KafkaError) {
        let list = RDKafkaTopicPartitionList(partitions)
        let err = list.withPointer { rd_kafka_assign(handle, $0) }
        guard err == RD_KAFKA_RESP_ERR_NO_ERROR else { throw KafkaError(err, "assign \(partitions)") }
        if paused() { _ = list.withPointer { rd_kafka_pause_partitions(handle, $0) } }
    }

    /// `rd_kafka_offsets_store` of `offsets` (each already `offset + 1`).
    /// - Returns: the partitions whose offset was not stored, with librdkafka's error.
    func storeOffsets(_ offsets: [KafkaTopicPartitionOffset]) -> [KafkaTopicPartition: KafkaError] {
        let list = RDKafkaTopicPartitionList(offsets)
        let err = list.withPointer { rd_kafka_offsets_store(handle, $0) }
        var rejected: [KafkaTopicPartition: KafkaError] = [:]
        for entry in list.entries where entry.error != RD_KAFKA_RESP_ERR_NO_ERROR {
            rejected[entry.partition] = KafkaError(entry.error, "store offset \(entry.offset)")
        }
        if err != RD_KAFKA_RESP_ERR_NO_ERROR, rejected.isEmpty {
            for entry in list.entries { rejected[entry.partition] = KafkaError(err, "store offset \(entry.offset)") }
        }
        return rejected
    }

    /// Synchronous `rd_kafka_commit(rk, NULL, 0)` of the stored offsets. BLOCKING. Nothing to commit is success.
    func commitStored() throws(KafkaError) {
        let err = rd_kafka_commit(handle, nil, 0)
        guard err == RD_KAFKA_RESP_ERR_NO_ERROR || err == RD_KAFKA_RESP_ERR__NO_OFFSET else {
            throw KafkaError(err, "commit: \(String(cString: rd_kafka_err2str(err)))")
        }
    }

    /// The group's committed offsets (`rd_kafka_committed`). BLOCKING (up to `timeoutMs`).
    func committed(_ partitions: [KafkaTopicPartition], timeoutMs: Int32) throws(KafkaError)
        -> [KafkaTopicPartitionOffset]
    {
        let list = RDKafkaTopicPartitionList(partitions)
        let err = list.withPointer { rd_kafka_committed(handle, $0, timeoutMs) }
        guard err == RD_KAFKA_RESP_ERR_NO_ERROR else { throw KafkaError(err, "committed offsets") }
        return list.entries.map(\.offset)
    }

    /// The current assignment (`rd_kafka_assignment`).
    func assignment() throws(KafkaError) -> [KafkaTopicPartition] {
        var pointer: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?
        let err = rd_kafka_assignment(handle, &pointer)
        guard err == RD_KAFKA_RESP_ERR_NO_ERROR, let pointer else { throw KafkaError(err, "assignment") }
        return RDKafkaTopicPartitionList(taking: pointer).entries.map(\.partition)
    }

    /// `rd_kafka_consumer_close`: revokes through the rebalance callback, commits, leaves the group. BLOCKING.
    /// - Returns: librdkafka's result code.
    func closeConsumer() -> KafkaError.Code {
        KafkaError.Code(rd_kafka_consumer_close(handle))
    }
}
