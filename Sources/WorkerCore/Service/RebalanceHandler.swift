import Kafka
import ObservationUpsert

/// The consumer's rebalance handler (runs on the consumer's poll thread): mirrors assignment generations into the
/// ``PartitionTracker`` and, on a revoke, waits (bounded) for the in-flight batch so its offsets are stored before
/// the consumer commits and hands the partitions over.
struct RebalanceHandler: Sendable {
    let tracker: PartitionTracker
    let metrics: Metrics
    let logger: Logger
    /// How long a revoke waits for the in-flight batch.
    let revokeWait: Duration

    func handle(_ event: KafkaRebalanceEvent) {
        switch event {
        case .assigned(let partitions, let generation):
            tracker.assign(partitions, generation: generation)
            metrics.increment(.rebalances, label: "assigned", by: Double(partitions.count))
            logger.info("partitions assigned", [("partitions", .string(partitions.logDescription))])
        case .revoked(let partitions, let lost):
            if !lost { CrashPoint.reach(.insideRevoke) }
            let finished = tracker.revoke(partitions, lost: lost, waitingAtMost: revokeWait)
            metrics.increment(.rebalances, label: lost ? "lost" : "revoked", by: Double(partitions.count))
            logger.info(
                lost ? "partitions lost" : "partitions revoked",
                [("partitions", .string(partitions.logDescription)), ("in_flight_finished", .bool(finished))])
        }
        metrics.set(.assignedPartitions, Double(tracker.assignedPartitions.count))
    }
}
