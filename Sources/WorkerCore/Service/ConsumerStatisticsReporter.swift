import Kafka
import Synchronization

/// Reads the consumer's latest statistics (never blocking): broker reachability into the readiness model, and the
/// per-partition lag of the current assignment into the `dvp_consumer_lag` gauges.
///
/// The HTTP endpoint answers before the consumer exists (the store may still be opening): until
/// ``attach(_:)`` it reports nothing.
final class ConsumerStatisticsReporter: Sendable {
    private let consumer = Mutex<KafkaConsumer?>(nil)
    private let tracker: PartitionTracker
    private let health: WorkerHealth
    private let metrics: Metrics

    init(tracker: PartitionTracker, health: WorkerHealth, metrics: Metrics) {
        self.tracker = tracker
        self.health = health
        self.metrics = metrics
    }

    /// Starts reporting `consumer`'s statistics.
    func attach(_ consumer: KafkaConsumer) {
        self.consumer.withLock { $0 = consumer }
    }

    /// Broker reachability: statistics showing a connected broker clear "brokers down", statistics showing none set
    /// it (an `_ALL_BROKERS_DOWN` event sets it at once, see ``BatchAssembler``).
    func refreshBrokerHealth() {
        guard let availability = consumer.withLock({ $0 })?.brokerAvailability(), availability.known > 0 else { return }
        if availability.up > 0 {
            health.brokersUp()
        } else {
            health.brokersDown("no connection to any of \(availability.known) brokers")
        }
    }

    /// Per-partition lag of the current assignment.
    func refreshLag() {
        metrics.clearGauge("dvp_consumer_lag")
        for stats in assignedStatistics() {
            metrics.set("dvp_consumer_lag", labels: "topic=\"\(stats.topic)\",partition=\"\(stats.partition)\"",
                        Double(stats.consumerLag))
        }
    }

    /// Records still to read over the current assignment (sum of the partitions' lag); nil while no statistics of
    /// an assigned partition are known yet.
    func remainingLag() -> Int64? {
        let statistics = assignedStatistics()
        return statistics.isEmpty ? nil : statistics.reduce(0) { $0 + $1.consumerLag }
    }

    /// The latest statistics of each assigned partition whose lag librdkafka knows.
    private func assignedStatistics() -> [KafkaPartitionStatistics] {
        guard let consumer = consumer.withLock({ $0 }) else { return [] }
        let assigned = Set(tracker.assignedPartitions)
        return consumer.partitionStatistics().filter {
            $0.consumerLag >= 0 && assigned.contains(KafkaTopicPartition(topic: $0.topic, partition: $0.partition))
        }
    }
}
