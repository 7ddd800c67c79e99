import Essentials
import Kafka
import ObservationUpsert

/// Makes one prepared batch durable — upsert and dead-letter delivery side by side — then stores its offsets.
///
/// A batch whose partitions were revoked while it waited is prepared again without them; a batch whose partitions
/// all left, or whose share of the stop deadline passed, is abandoned un-stored (redelivered later).
struct BatchWriter: Sendable {
    let preparer: BatchPreparer
    let upserts: UpsertStage
    let deadLetters: DeadLetterStage
    let offsets: OffsetStorer
    let tracker: PartitionTracker
    let stop: WorkerStop
    let metrics: Metrics
    let logger: Logger

    /// Makes `batch` durable and stores its offsets, retrying failing dependencies with backoff.
    func write(_ batch: BatchPreparer.Prepared) async {
        var batch = batch
        // A revoke while the batch waited for its turn: process again without the revoked partitions (rare).
        if !tracker.areCurrent(batch.messages) {
            batch = await preparer.prepare(batch.messages)
        }
        let (messages, output) = (batch.messages, batch.output)
        guard !messages.isEmpty else { return }
        let started = ContinuousClock.now
        tracker.beginBatch()
        metrics.increment(.recordsConsumed, by: Double(messages.count))
        let generations = Array(output.lastRecords.values)
        let abandoned = { @Sendable [stop, tracker] in
            stop.batchDeadlinePassed || !generations.contains(where: tracker.isCurrent)
        }

        async let deadLettered = deadLetters.deliver(output, abandoned: abandoned)
        let upserted = await upserts.upsert(output.mapped, abandoned: abandoned)
        var dlqDone = await deadLettered
        if upserted.durable, dlqDone, !upserted.refused.isEmpty {
            var refused = BatchProcessor.Output()
            refused.deadLetters = upserted.refused
            refused.deadLetterClasses = upserted.refusedClasses
            dlqDone = await deadLetters.deliver(refused, abandoned: abandoned)
        }
        guard upserted.durable, dlqDone else {
            logger.warning("batch abandoned before it was durable; it will be redelivered",
                           [("records", .int(Int64(messages.count)))])
            tracker.abandon(generations)
            tracker.endBatch(durable: [])
            return
        }
        metrics.countSkipped(output.skipped)
        for (field, n) in output.omittedSourceFields {
            metrics.increment(.sourceFieldsOmitted, label: field, by: Double(n))
        }
        tracker.endBatch(durable: offsets.storeOffsets(after: generations))
        metrics.observe(.batchDuration, (ContinuousClock.now - started).seconds)
        logger.debug("batch durable", [("records", .int(Int64(messages.count))),
                                       ("dead_lettered", .int(Int64(output.deadLetters.count)))])
    }
}
