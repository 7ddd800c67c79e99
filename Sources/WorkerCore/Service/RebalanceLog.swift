import Kafka
import Observability

/// Observes the consumer's assignment changes (on its poll thread): counts and logs them. The fence itself — the
/// generations, and a revoke's wait for the batches in flight — is the consumer's (``KafkaConsumer``).
struct RebalanceLog: Sendable {
    let metrics: Metrics
    let logger: Logger
    /// Runs inside a non-lost revoke, before the consumer waits for the batches in flight (``WorkerFaults``).
    let onRevoke: @Sendable () -> Void

    func handle(_ event: KafkaRebalanceEvent) {
        switch event {
        case .assigned(let partitions, _):
            metrics.increment(.rebalances, label: "assigned", by: Double(partitions.count))
            logger.info("partitions assigned", [("partitions", .string(partitions.logDescription))])
        case .revoked(let partitions, let lost):
            if !lost { onRevoke() }
            metrics.increment(.rebalances, label: lost ? "lost" : "revoked", by: Double(partitions.count))
            logger.info(
                lost ? "partitions lost" : "partitions revoked", [("partitions", .string(partitions.logDescription))])
        }
    }
}
