import Kafka
import ObservationUpsert
import Synchronization

/// Why the pipeline ended before it was asked to stop: a dependency failed in a way retrying cannot fix.
enum PipelineFailure: Error, Sendable, CustomStringConvertible {
    /// The store refused the work for good (a SQL or permission error, a broken schema).
    case store(StoreError)
    /// The dead-letter producer failed fatally.
    case deadLetters(DeadLetterStage.Failure)
    /// The consumer reported a fatal error.
    case consumer(KafkaError)

    var description: String {
        switch self {
        case .store(let error): "\(error)"
        case .deadLetters(let failure): "\(failure)"
        case .consumer(let error): "fatal consumer error: \(error)"
        }
    }
}

/// The record path after the consumer, as one structured function: take a batch (``KafkaConsumer/nextBatch(upTo:window:idleTimeout:)``),
/// prepare it (``BatchPreparer``: decode, validate, map) while the batches before it are written
/// (``BatchWriter``: upsert and dead letters, then the consumer stores the offsets), at most ``Settings/writers``
/// at once, each a child task of one task group.
///
/// A stop ends the consumer's batches and the pipeline finishes what it holds; cancelling the task (the stop's
/// deadline passed) reaches every retry loop, which abandons its batch un-stored.
struct BatchPipeline: Sendable {
    /// How batches are cut and written, and when the run ends by itself.
    struct Settings: Sendable {
        var batchSize: Int
        var batchWindow: Duration
        /// `--until-caught-up`: end once every assigned partition is read to its end, durable and committed.
        var untilCaughtUp: Bool
        /// How many batches are written at once. The consumer's fence stores a partition's offsets only once every
        /// batch before it is durable, and never past an abandoned or released one (BatchFenceTests), so writes
        /// may finish in any order; the worker uses 1 until parallel store connections exist (issue 24).
        var writers = 1
    }

    /// How the run ended.
    enum Outcome: Sendable {
        /// The consumer stopped (a stop was requested) and what the pipeline held is durable or abandoned.
        case stopped
        /// `--until-caught-up`: every assigned partition is read to its end, durable and committed.
        case caughtUp
        case failed(PipelineFailure)
    }

    let settings: Settings
    let consumer: KafkaConsumer
    let preparer: BatchPreparer
    let writer: BatchWriter
    let health: WorkerHealth
    let metrics: Metrics
    let logger: Logger

    /// Runs until the consumer stops, a dependency fails for good, or (with `--until-caught-up`) caught up.
    func run() async -> Outcome {
        await withTaskGroup(of: BatchWriter.Result.self) { writes in
            var writing = 0
            var failure: PipelineFailure?
            var nextCaughtUpCheck = ContinuousClock.now
            func record(_ result: BatchWriter.Result?) {
                guard let result else {
                    writing = 0
                    return
                }
                writing -= 1
                if case .failed(let reason) = result, failure == nil { failure = reason }
            }
            // A write that failed for good ends the reading at its next turn (at most the idle timeout later).
            let firstFailure = FirstFailure()
            reading: while failure == nil {
                if let failed = firstFailure.value {
                    failure = failed
                    break reading
                }
                switch await consumer.nextBatch(
                    upTo: settings.batchSize, window: settings.batchWindow, idleTimeout: .milliseconds(250))
                {
                case .finished:
                    break reading
                case .idle:
                    break
                case .batch(let batch):
                    if let fatal = handle(batch.errors) {
                        failure = .consumer(fatal)
                        consumer.abandon(batch.fence)
                        break reading
                    }
                    if batch.staleRecordsDropped > 0 {
                        metrics.increment(.staleRecordsDropped, by: Double(batch.staleRecordsDropped))
                    }
                    guard !batch.fence.isEmpty else { break }
                    health.brokersUp()
                    metrics.increment(.recordsConsumed, by: Double(batch.messages.count))
                    let prepared = await preparer.prepare(batch)
                    while writing >= settings.writers { record(await writes.next()) }
                    guard failure == nil else {
                        consumer.abandon(prepared.fence)
                        break reading
                    }
                    writes.addTask {
                        let result = await writer.write(prepared)
                        if case .failed(let reason) = result { firstFailure.record(reason) }
                        return result
                    }
                    writing += 1
                }
                guard settings.untilCaughtUp, failure == nil, ContinuousClock.now >= nextCaughtUpCheck else { continue }
                if consumer.allReachedEnd {
                    // Nothing left to read: let the batches in flight become durable before judging.
                    while writing > 0 { record(await writes.next()) }
                }
                if writing == 0, failure == nil, consumer.isCaughtUp {
                    // Done only once the caught-up offsets are committed; a refused commit (the group is
                    // rebalancing, e.g. another member just left) means: keep consuming until it is stable.
                    do {
                        try await consumer.commit()
                        logger.info("caught up", [("partitions", .int(Int64(consumer.assignedPartitions.count)))])
                        return .caughtUp
                    } catch {
                        logger.info("caught up, but the commit was refused; continuing until the group is stable",
                                    [("error", .string("\(error)"))])
                        nextCaughtUpCheck = .now + .seconds(1)
                    }
                }
            }
            while writing > 0 { record(await writes.next()) }
            return failure.map(Outcome.failed) ?? .stopped
        }
    }

    /// The first write failure, seen by the reading loop without waiting for the write task.
    private final class FirstFailure: Sendable {
        private let failure = Mutex<PipelineFailure?>(nil)
        var value: PipelineFailure? { failure.withLock { $0 } }
        func record(_ reason: PipelineFailure) { failure.withLock { $0 = $0 ?? reason } }
    }

    /// The consumer's error events: a fatal one ends the run (returned); `_ALL_BROKERS_DOWN` makes the worker not
    /// ready at once; the rest librdkafka recovers from by itself.
    private func handle(_ errors: [KafkaError]) -> KafkaError? {
        for error in errors {
            if error.isFatal {
                logger.error("fatal consumer error; stopping", [("error", .string("\(error)"))])
                return error
            } else if error.code == .allBrokersDown {
                health.brokersDown()
                logger.warning("all brokers down", [("error", .string("\(error)"))])
            } else {
                logger.warning("consumer error (librdkafka recovers by itself)", [("error", .string("\(error)"))])
            }
        }
        return nil
    }
}
