import Synchronization

extension KafkaConsumer {
    // MARK: - Storing and committing

    /// Stores, for the next commit, the offset after each of `records` (`offset + 1`, via `rd_kafka_offsets_store`)
    /// — but only for records whose partition is still in the generation they were fetched in
    /// (``KafkaMessage/assignmentGeneration``): a record of a revoked or lost assignment never moves the offsets of
    /// a later assignment. The check and the store happen under the lock the rebalance callback takes to end a
    /// generation, so they cannot interleave. Pass the last processed record per partition. Thread-safe,
    /// non-blocking.
    /// - Returns: the partitions whose offset was not stored, with the reason: ``KafkaError/Kind/state`` for a
    ///   stale generation (expected after a rebalance: the partition's next owner re-reads the records), or
    ///   librdkafka's error.
    @discardableResult
    public func storeOffsets(after records: [KafkaMessage]) -> [KafkaTopicPartition: KafkaError] {
        guard !records.isEmpty else { return [:] }
        guard !client.isDestroyed else {
            let error = KafkaError.state("storeOffsets: the consumer is closed")
            return Dictionary(records.map { ($0.topicPartition, error) }, uniquingKeysWith: { first, _ in first })
        }
        let client = self.client
        return context.state.withLock { state in
            var rejected: [KafkaTopicPartition: KafkaError] = [:]
            var current: [KafkaTopicPartitionOffset] = []
            for record in records {
                if state.isCurrent(record.topicPartition, generation: record.assignmentGeneration) {
                    current.append(record.nextOffset)
                } else {
                    rejected[record.topicPartition] = .state(
                        "store offset \(record.nextOffset.offset): generation \(record.assignmentGeneration) of "
                            + "\(record.topic)[\(record.partition)] is no longer current (revoked or lost)")
                }
            }
            guard !current.isEmpty else { return rejected }
            return rejected.merging(client.storeOffsets(current)) { $1 }
        }
    }

    /// Commits the stored offsets now and waits for the coordinator's answer (`rd_kafka_commit(rk, NULL, 0)` on
    /// its own thread). Nothing stored since the last commit is success.
    /// - Throws: ``KafkaError`` from the coordinator (e.g. `REBALANCE_IN_PROGRESS`, `ILLEGAL_GENERATION`).
    public func commit() async throws(KafkaError) {
        try client.checkOpen("commit")
        let client = self.client
        let result: Result<Void, KafkaError> = await RDKafkaBlocking.run("kafka-consumer-commit") {
            do throws(KafkaError) { return .success(try client.commitStored()) } catch { return .failure(error) }
        }
        try result.get()
    }

    /// The group's committed offsets for `partitions`, asked from the coordinator (on its own thread).
    /// Partitions without a commit have ``KafkaTopicPartitionOffset/invalid``.
    public func committed(_ partitions: [KafkaTopicPartition], timeout: Duration) async throws(KafkaError)
        -> [KafkaTopicPartitionOffset]
    {
        try client.checkOpen("committed")
        let client = self.client
        let result: Result<[KafkaTopicPartitionOffset], KafkaError> = await RDKafkaBlocking.run(
            "kafka-consumer-committed"
        ) {
            do throws(KafkaError) {
                return .success(try client.committed(partitions, timeoutMs: KafkaProducer.milliseconds(timeout)))
            } catch { return .failure(error) }
        }
        return try result.get()
    }

    // MARK: - Assignment and positions

    /// The partitions currently assigned to this consumer.
    public func assignment() throws(KafkaError) -> [KafkaTopicPartition] {
        try client.checkOpen("assignment")
        return try client.assignment().sorted()
    }

    /// Cached watermarks (`rd_kafka_get_watermark_offsets`): never blocks. The high watermark is updated by
    /// fetches, the low one by statistics; `-1001` when not known yet. (The blocking query is avoided on
    /// purpose: in 2.0.2 it can ignore its timeout while a leader is down, #4460.)
    public func watermarks(topic: String, partition: Int32) throws(KafkaError) -> (low: Int64, high: Int64) {
        try client.checkOpen("watermarks")
        return try client.cachedWatermarks(topic: topic, partition: partition)
    }

    /// Per-partition figures from the latest statistics (`statistics.interval.ms`): lag, log start, committed
    /// and stored offsets. Empty until the first statistics arrived or when statistics are disabled.
    public func partitionStatistics() -> [KafkaPartitionStatistics] {
        context.latestStatistics
    }

    /// Brokers connected versus known, from the latest statistics; `nil` until the first statistics arrived.
    /// (Up to date within `statistics.interval.ms`; cheap, never blocks.)
    public func brokerAvailability() -> KafkaBrokerAvailability? {
        context.latestBrokerAvailability
    }

    /// The partition count of `topic` from broker metadata (asked on its own thread).
    public func partitionCount(topic: String, timeout: Duration) async throws(KafkaError) -> Int {
        try await client.partitionCount(topic: topic, timeout: timeout)
    }
}

extension KafkaConsumer {
    /// The topic's configuration (e.g. `retention.ms`) as the brokers describe it (DescribeConfigs, on its own
    /// thread).
    /// - Throws: ``KafkaError`` when the brokers do not support or deny the request (librdkafka's mock cluster
    ///   has no DescribeConfigs), or do not answer within `timeout`.
    public func topicConfiguration(_ topic: String, timeout: Duration) async throws(KafkaError) -> [String: String] {
        try client.checkOpen("topicConfiguration")
        let client = self.client
        let result: Result<[String: String], KafkaError> = await RDKafkaBlocking.run("kafka-describe-configs") {
            do throws(KafkaError) {
                return .success(try client.topicConfiguration(topic, timeoutMs: KafkaProducer.milliseconds(timeout)))
            } catch { return .failure(error) }
        }
        return try result.get()
    }
}
