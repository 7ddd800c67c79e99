import Kafka
import Observability
import StoreCore
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
/// and in a child task of one task group prepare it (``BatchPreparer``: decode, validate, read stored versions,
/// map) while the batches before it are prepared or written, then write it (``BatchWriter``: upsert and dead
/// letters, then the consumer stores the offsets) once the batch before it is written (``WriteTurn``): at most
/// ``Settings/inFlight`` batches at once, their preparations overlapping (a replay's version reads are
/// pipelined), their writes one after the other in the order they were read.
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
        /// How many batches are prepared or written at once (each write waits for the one before it; a store
        /// writes one batch on several connections itself: `--store-connections`). The consumer's fence stores a
        /// partition's offsets only once every batch before it is durable, and never past an abandoned or
        /// released one (BatchFenceTests).
        var inFlight = 3
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
            var lastTurn: WriteTurn?
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
                    while writing >= settings.inFlight { record(await writes.next()) }
                    guard failure == nil else {
                        consumer.abandon(batch.fence)
                        break reading
                    }
                    let (previous, turn) = (lastTurn, WriteTurn())
                    lastTurn = turn
                    writes.addTask {
                        let prepared = await preparer.prepare(batch)
                        await previous?.wait()
                        defer { turn.open() }
                        // A write before this one failed for good: the run ends; nothing more is written.
                        if let failed = firstFailure.value {
                            consumer.abandon(prepared.fence)
                            return .failed(failed)
                        }
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
                        logger.info(
                            "caught up, but the commit was refused; continuing until the group is stable",
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
