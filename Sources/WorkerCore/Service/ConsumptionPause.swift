import Kafka
import Synchronization

/// Pauses consumption while the store or the dead-letter topic fails, and resumes it once both recovered.
///
/// Used by the durable stages of the pipeline (``UpsertStage``, ``DeadLetterStage``); it touches only the
/// consumer's app-level pause (`pauseAll` / `resumeAll`), the `dvp_paused` gauge and the readiness model.
final class ConsumptionPause: Sendable {
    private let consumer: KafkaConsumer
    private let health: WorkerHealth
    private let metrics: Metrics
    private let logger: Logger
    private let paused = Mutex(false)

    init(consumer: KafkaConsumer, health: WorkerHealth, metrics: Metrics, logger: Logger) {
        self.consumer = consumer
        self.health = health
        self.metrics = metrics
        self.logger = logger
    }

    /// Stops fetching (once) until ``resumeAfterRecovery()``.
    func pauseForFailure() {
        let first = paused.withLock { p -> Bool in
            defer { p = true }
            return !p
        }
        guard first else { return }
        consumer.pauseAll()
        metrics.set(.paused, 1)
        logger.warning("consumption paused until the failing dependency recovers")
    }

    /// Resumes consumption once neither the store nor the dead-letter topic is failing.
    func resumeAfterRecovery() {
        guard health.dependenciesHealthy else { return }
        let wasPaused = paused.withLock { p -> Bool in
            defer { p = false }
            return p
        }
        guard wasPaused else { return }
        consumer.resumeAll()
        metrics.set(.paused, 0)
        logger.info("consumption resumed")
    }
}
