import Essentials
import Kafka
import Observability

/// Makes one prepared batch durable — upsert and dead-letter delivery side by side — then completes it with the
/// consumer, which stores its offsets (``KafkaConsumer/complete(_:)``).
///
/// Partitions revoked while the batch waited for its turn are filtered out of it (their next owner reads them
/// again); a batch whose partitions all left while it was retried, or whose task was cancelled (a stop whose
/// deadline passed), is abandoned un-stored; one whose store or dead-letter topic failed for good ends the run.
struct BatchWriter: Sendable {
    /// What became of a batch.
    enum Result: Sendable {
        /// Durable and completed (or nothing of it was left to write).
        case durable
        /// Given up un-stored: it is read again by the partitions' next owner or after a restart.
        case abandoned
        /// A dependency failed in a way retrying cannot fix; the batch was abandoned.
        case failed(PipelineFailure)
    }

    let consumer: KafkaConsumer
    let upserts: UpsertStage
    let deadLetters: DeadLetterStage
    let metrics: Metrics
    let logger: Logger

    /// Makes `prepared` durable and completes it, retrying failing dependencies with backoff.
    func write(_ prepared: BatchPreparer.Prepared) async -> Result {
        var batch = prepared
        batch.remove(partitions: consumer.retainCurrent(&batch.fence))
        let (fence, output) = (batch.fence, batch.output)
        guard !fence.isEmpty else { return .durable }
        let started = ContinuousClock.now
        let consumer = self.consumer
        let abandoned: @Sendable () -> Bool = { !consumer.holdsCurrentPartition(fence) }

        let (checked, letters) = await upserts.withoutRefusedPersons(output.deadLetters, abandoned: abandoned)
        switch checked {
        case .done: break
        case .failed(let error):
            consumer.abandon(fence)
            return .failed(.store(error))
        case .abandoned:
            logger.warning(
                "batch abandoned before it was durable; it will be read again",
                [("partitions", .string(fence.partitions.logDescription))])
            consumer.abandon(fence)
            return .abandoned
        }
        async let deadLettered = deadLetters.deliver(letters, abandoned: abandoned)
        let upserted = await upserts.upsert(output.mapped, abandoned: abandoned)
        if case .failed(let error) = upserted.ending {
            // Leaving the scope cancels the dead letters' retries.
            consumer.abandon(fence)
            return .failed(.store(error))
        }
        var delivered = await deadLettered
        if case .done = upserted.ending, case .done = delivered, !upserted.refused.isEmpty {
            delivered = await deadLetters.deliver(upserted.refused, abandoned: abandoned)
        }
        switch (upserted.ending, delivered) {
        case (.done, .done):
            break
        case (_, .failed(let failure)):
            consumer.abandon(fence)
            return .failed(.deadLetters(failure))
        default:
            logger.warning(
                "batch abandoned before it was durable; it will be read again",
                [("partitions", .string(fence.partitions.logDescription))])
            consumer.abandon(fence)
            return .abandoned
        }
        if letters.count < output.deadLetters.count {
            metrics.increment(.erasedDeadLetters, by: Double(output.deadLetters.count - letters.count))
        }
        metrics.countSkipped(output.skippedTotals)
        for counts in output.omittedSourceFields.values {
            for (field, n) in counts {
                metrics.increment(.sourceFieldsOmitted, label: field, by: Double(n))
            }
        }
        report(consumer.complete(fence))
        metrics.observe(.batchDuration, (ContinuousClock.now - started).seconds)
        logger.debug(
            "batch durable",
            [("records", .int(Int64(output.mapped.count + output.deadLetters.count))),
             ("dead_lettered", .int(Int64(output.deadLetters.count)))])
        return .durable
    }

    private func report(_ completion: KafkaBatchCompletion) {
        if !completion.refused.isEmpty {
            metrics.increment(.offsetStoreRefused, by: Double(completion.refused.count))
            logger.info(
                "offsets not stored for partitions revoked meanwhile; their next owner re-reads them",
                [("partitions", .string(completion.refused.logDescription))])
        }
        if !completion.errors.isEmpty {
            metrics.increment(.offsetStoreRefused, by: Double(completion.errors.count))
            logger.warning(
                "librdkafka refused to store offsets; the records are read again",
                [("partitions", .string(completion.errors.keys.sorted().logDescription)),
                 ("error", .string("\(completion.errors.values.first!)"))])
        }
    }
}
