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
        guard let consumer = consumer.withLock({ $0 }) else { return }
        let assigned = Set(tracker.assignedPartitions)
        metrics.clearGauge("dvp_consumer_lag")
        for stats in consumer.partitionStatistics() where stats.consumerLag >= 0 {
            let tp = KafkaTopicPartition(topic: stats.topic, partition: stats.partition)
            guard assigned.contains(tp) else { continue }
            metrics.set("dvp_consumer_lag", labels: "topic=\"\(stats.topic)\",partition=\"\(stats.partition)\"",
                        Double(stats.consumerLag))
        }
    }
}
