import Essentials
import Kafka
import Observability
import StoreCore

/// The stop steps after the pipeline ended, each within its share of the one drain deadline (``ShutdownPlan``):
/// final offset commit → close the consumer (revoke, commit, leave the group) → flush and close the dead-letter
/// producer → close the store.
struct ShutdownSequence: Sendable {
    let consumer: KafkaConsumer
    let deadLetters: KafkaProducer
    let store: any ObservationStore
    let metrics: Metrics
    let logger: Logger

    /// Runs every step; a step that fails or times out is logged and the next one still runs.
    func run(_ plan: ShutdownPlan) async {
        consumer.stopConsuming()
        await commitBeforeClose(until: plan.deadline(.commit))
        let closeBudget = plan.remaining(.closeConsumer)
        switch await consumer.close(timeout: closeBudget) {
        case .closed: logger.info("consumer closed; group left")
        case .failed(let error): logger.warning("consumer closed with an error", [("error", .string("\(error)"))])
        case .timedOut:
            logger.error("consumer close timed out (librdkafka 2.0.2 close hang); exiting anyway",
                         [("timeout_s", .double(closeBudget.seconds))])
        }
        let dependencies = plan.remaining(.closeDependencies)
        do { try await deadLetters.flush(timeout: dependencies * 0.5) } catch {
            logger.warning("dead-letter producer flush failed", [("error", .string("\(error)"))])
        }
        _ = await deadLetters.close(timeout: max(.milliseconds(100), plan.remaining(.closeDependencies)))
        await store.close()
    }

    /// Commits the stored offsets before leaving the group, retrying while the group is rebalancing (other members
    /// joining or leaving at the same moment): a commit lost here costs duplicates on the next run.
    private func commitBeforeClose(until deadline: ContinuousClock.Instant) async {
        var backoff = Backoff(initial: .milliseconds(200), maximum: .seconds(1))
        while true {
            do {
                try await consumer.commit()
                return
            } catch {
                metrics.increment(.offsetCommitErrors)
                guard Self.worthRetrying(error), ContinuousClock.now < deadline else {
                    logger.warning("final commit failed; the next owner re-reads the uncommitted tail",
                                   [("error", .string("\(error)"))])
                    return
                }
                logger.info("final commit refused for now; retrying", [("error", .string("\(error)"))])
                try? await Task.sleep(for: min(backoff.next(), max(.zero, deadline - .now)))
            }
        }
    }

    /// Retriable errors, and the group-membership answers of a group that is settling a rebalance.
    static func worthRetrying(_ error: KafkaError) -> Bool {
        if error.isRetriable { return true }
        switch error.code {
        case .illegalGeneration, .unknownMemberID, .waitingForCoordinator: return true
        default: return false
        }
    }
}
