import Kafka

/// The offset stage: once a batch is durable, stores the offset after each partition's last record for the next
/// commit — only for records still in their partition's current generation (checked by the consumer atomically
/// with the store) and never past an abandoned batch of the same partition and generation.
struct OffsetStorer: Sendable {
    let consumer: KafkaConsumer
    let tracker: PartitionTracker
    let metrics: Metrics
    let logger: Logger

    /// Stores the offsets after `lastRecords` (one per partition).
    /// - Returns: the records whose offsets were stored.
    func storeOffsets(after lastRecords: [KafkaMessage]) -> [KafkaMessage] {
        let last = tracker.storable(lastRecords)
        let refused = consumer.storeOffsets(after: last)
        if !refused.isEmpty {
            metrics.increment(.offsetStoreRefused, by: Double(refused.count))
            logger.info("offsets not stored for partitions revoked meanwhile; their next owner re-reads them",
                        [("partitions", .string(refused.keys.logDescription))])
        }
        return last.filter { refused[$0.topicPartition] == nil }
    }
}
