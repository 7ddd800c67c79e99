import Kafka
import Observability
import Synchronization

/// Reads the consumer's latest statistics (never blocking): broker reachability into the readiness model, and the
/// per-partition lag of the current assignment into the `dvp_consumer_lag` gauges.
///
/// The HTTP endpoint answers before the consumer exists (the store may still be opening): until
/// ``attach(_:)`` it reports nothing.
final class ConsumerStatisticsReporter: Sendable {
    private let consumer = Mutex<KafkaConsumer?>(nil)
    private let health: WorkerHealth
    private let metrics: Metrics

    init(health: WorkerHealth, metrics: Metrics) {
        self.health = health
        self.metrics = metrics
    }

    /// Starts reporting `consumer`'s statistics.
    func attach(_ consumer: KafkaConsumer) {
        self.consumer.withLock { $0 = consumer }
    }

    /// Broker reachability: statistics showing a connected broker clear "brokers down", statistics showing none set
    /// it (an `_ALL_BROKERS_DOWN` event from the consumer sets it at once).
    func refreshBrokerHealth() {
        guard let availability = consumer.withLock({ $0 })?.brokerAvailability(), availability.known > 0 else { return }
        if availability.up > 0 {
            health.brokersUp()
        } else {
            health.brokersDown()
        }
    }

    /// Per-partition lag of the current assignment (high watermark minus the committed offset, as Kafka tools and
    /// KEDA see it), the number of assigned partitions, and whether fetching is paused (the consumer pauses while
    /// the store or the dead-letter topic fails).
    func refreshConsumerGauges() {
        let consumer = consumer.withLock { $0 }
        metrics.set(.assignedPartitions, Double(consumer?.assignedPartitions.count ?? 0))
        metrics.set(.paused, consumer?.isPausedByApp == true ? 1 : 0)
        metrics.clear(.consumerLag)
        for stats in assignedStatistics() where stats.consumerLag >= 0 {
            metrics.set(.consumerLag, topic: stats.topic, partition: stats.partition, Double(stats.consumerLag))
        }
    }

    /// Records not yet durable over the current assignment: per partition the high watermark minus the stored
    /// offset (raised after every durable batch), or minus the committed offset before the first store; nil while
    /// neither is known for any assigned partition. (The committed lag alone trails by up to
    /// `auto.commit.interval.ms`, and is unknown until the group's first commit.)
    func remainingLag() -> Int64? {
        let lags = assignedStatistics().compactMap { stats -> Int64? in
            if stats.consumerLagStored >= 0 { return stats.consumerLagStored }
            return stats.consumerLag >= 0 ? stats.consumerLag : nil
        }
        return lags.isEmpty ? nil : lags.reduce(0, +)
    }

    /// The latest statistics of each assigned partition.
    private func assignedStatistics() -> [KafkaPartitionStatistics] {
        guard let consumer = consumer.withLock({ $0 }) else { return [] }
        let assigned = Set(consumer.assignedPartitions)
        return consumer.partitionStatistics().filter {
            assigned.contains(KafkaTopicPartition(topic: $0.topic, partition: $0.partition))
        }
    }
}
