import Kafka

/// Batch assembly, the first stage after the consumer: takes records straight from the consumer's buffer (the only
/// buffer between librdkafka and the store), drops those of an ended assignment generation, collects them by count
/// and time, and hands each batch to the ``BatchPipeline``.
///
/// Records carry the assignment generation they were fetched in; a record whose partition has moved on to another
/// generation (revoked, lost, re-assigned) is dropped here, before it reaches a batch or an offset.
struct BatchAssembler {
    /// How batches are cut, and when the run ends by itself.
    struct Settings: Sendable {
        var batchSize: Int
        var batchWindow: Duration
        /// `--until-caught-up`: end once every assigned partition is read to its end, durable and committed.
        var untilCaughtUp: Bool
    }

    let settings: Settings
    let consumer: KafkaConsumer
    let tracker: PartitionTracker
    let health: WorkerHealth
    let stop: WorkerStop
    let metrics: Metrics
    let logger: Logger
    var pipeline: BatchPipeline

    /// Runs until the consumer stops (stop requested) or, with `--until-caught-up`, until caught up.
    /// - Returns: true when it ended because every assigned partition was caught up.
    mutating func run() async -> Bool {
        var pending: [KafkaMessage] = []
        pending.reserveCapacity(settings.batchSize)
        // Records are accepted a run at a time (one lock), in order with the end-of-partition events.
        var received: [KafkaMessage] = []
        var batchStarted = ContinuousClock.now
        var nextCaughtUpCheck = ContinuousClock.now
        while true {
            let wait = pending.isEmpty ? Duration.milliseconds(250) : max(.zero, batchStarted + settings.batchWindow - .now)
            switch await consumer.next(upTo: settings.batchSize - pending.count, timeout: wait) {
            case .events(let events):
                var sawRecord = false
                for event in events {
                    switch event {
                    case .message(let message):
                        sawRecord = true
                        received.append(message)
                    case .partitionEOF(let topic, let partition, let offset, let generation):
                        accept(&received, into: &pending, batchStarted: &batchStarted)
                        tracker.reachedEnd(
                            KafkaTopicPartition(topic: topic, partition: partition), nextOffset: offset,
                            generation: generation)
                    case .error(let error):
                        accept(&received, into: &pending, batchStarted: &batchStarted)
                        handle(error)
                    }
                }
                accept(&received, into: &pending, batchStarted: &batchStarted)
                if sawRecord { health.brokersUp() }
                if pending.count >= settings.batchSize {
                    await pipeline.submit(pending)
                    pending.removeAll(keepingCapacity: true)
                }
            case .timedOut:
                if !pending.isEmpty && ContinuousClock.now >= batchStarted + settings.batchWindow {
                    await pipeline.submit(pending)
                    pending.removeAll(keepingCapacity: true)
                }
            case .finished:
                if !pending.isEmpty { await pipeline.submit(pending) }
                await pipeline.drain()
                return false
            }
            guard settings.untilCaughtUp, pending.isEmpty, ContinuousClock.now >= nextCaughtUpCheck else { continue }
            if tracker.allReachedEnd {
                // Nothing left to read: let the batch in flight become durable before judging.
                await pipeline.drain()
            }
            if pipeline.isIdle && tracker.isCaughtUp {
                // Done only once the caught-up offsets are committed; a refused commit (the group is rebalancing,
                // e.g. another member just left) means: keep consuming until the group is stable, then try again.
                do {
                    try await consumer.commit()
                    logger.info("caught up", [("partitions", .int(Int64(tracker.assignedPartitions.count)))])
                    return true
                } catch {
                    logger.info("caught up, but the commit was refused; continuing until the group is stable",
                                [("error", .string("\(error)"))])
                    nextCaughtUpCheck = .now + .seconds(1)
                }
            }
        }
    }

    /// Moves `received` into `pending`, without the records of an ended generation; starts the batch clock when
    /// `pending` was empty.
    private func accept(
        _ received: inout [KafkaMessage], into pending: inout [KafkaMessage], batchStarted: inout ContinuousClock.Instant
    ) {
        guard !received.isEmpty else { return }
        let accepted = tracker.accept(received)
        if accepted.count < received.count {
            metrics.increment(.staleRecordsDropped, by: Double(received.count - accepted.count))
        }
        if pending.isEmpty && !accepted.isEmpty { batchStarted = .now }
        pending.append(contentsOf: accepted)
        received.removeAll(keepingCapacity: true)
    }

    /// A consumer error event: fatal ones stop the worker; `_ALL_BROKERS_DOWN` makes it not ready at once; the
    /// rest librdkafka recovers from by itself.
    private func handle(_ error: KafkaError) {
        if error.isFatal {
            logger.error("fatal consumer error; stopping", [("error", .string("\(error)"))])
            stop.request()
        } else if error.code == .allBrokersDown {
            health.brokersDown()
            logger.warning("all brokers down", [("error", .string("\(error)"))])
        } else {
            logger.warning("consumer error (librdkafka recovers by itself)", [("error", .string("\(error)"))])
        }
    }
}
