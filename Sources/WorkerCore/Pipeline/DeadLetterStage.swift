import Kafka

/// The dead-letter stage: sends a batch's dead-letter records and waits for every delivery report, retrying with
/// backoff (consumption paused, readiness false) while the dead-letter topic fails.
struct DeadLetterStage: Sendable {
    let producer: KafkaProducer
    let health: WorkerHealth
    let pause: ConsumptionPause
    let metrics: Metrics
    let logger: Logger

    /// Sends `output`'s dead-letter records and waits for every delivery report.
    /// - Returns: false if abandoned before all were acknowledged.
    func deliver(_ output: BatchProcessor.Output, abandoned: @Sendable () -> Bool) async -> Bool {
        var remaining = output.deadLetters
        guard !remaining.isEmpty else { return true }
        let retrying = RetryingStage(pause: pause, logger: logger)
        let delivered = await retrying.run(
            "dead-letter delivery failed; retrying", abandoned: abandoned,
            failed: { failure in health.deadLetterFailed(failure.error) },
            recovered: { _ in health.deadLetterRecovered() },
            attempt: {
                let results = await producer.send(remaining)
                var failed: [KafkaOutgoingMessage] = []
                var lastError: KafkaError?
                for (message, result) in zip(remaining, results) {
                    if case .failure(let error) = result {
                        failed.append(message)
                        lastError = error
                    }
                }
                guard !failed.isEmpty else { return nil }
                // Re-sending the failed ones may duplicate a record whose report was lost: consumers of the
                // dead-letter topic dedupe by (original topic, partition, offset), all in the headers.
                remaining = failed
                metrics.increment("dvp_dead_letter_errors_total", by: Double(failed.count))
                return RetryingStage.Failure(
                    error: lastError.map { "\($0)" } ?? "unknown", fields: [("records", .int(Int64(failed.count)))])
            })
        if delivered {
            for (name, n) in output.deadLetterClasses {
                metrics.increment("dvp_dead_lettered_total", labels: "class=\"\(name)\"", by: Double(n))
            }
        }
        return delivered
    }
}
