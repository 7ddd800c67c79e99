import Essentials
import Kafka
import StoreCore
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
    let erasure: ErasureCheck
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

        let letters: [DeadLetterRecord]
        do {
            letters = try await withoutRefusedPersons(output.deadLetters)
        } catch {
            consumer.abandon(fence)
            guard error.isRetriable else { return .failed(.store(error)) }
            logger.warning(
                "the erasure ledger could not be read for the batch's dead letters; it will be read again",
                [("error", .string("\(error)"))])
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

    /// `letters` without the records of persons the erasure ledger refuses: those are dropped, never dead-lettered
    /// with their content (docs/PRIVACY.md).
    private func withoutRefusedPersons(_ letters: [DeadLetterRecord]) async throws(StoreError) -> [DeadLetterRecord] {
        let refused: [Bool]?
        do {
            refused = try await erasure.refused(letters.map(\.original))
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.usage, "unexpected \(type(of: error)): \(error)")
        }
        guard let refused else { return letters }
        return zip(letters, refused).filter { !$0.1 }.map(\.0)
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
