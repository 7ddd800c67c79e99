import Essentials
import Foundation
import Kafka
import ObservationUpsert

/// The batching loop: takes records straight from the consumer's buffer, collects them by count and time,
/// processes a batch, makes it durable, stores offsets.
///
/// Records carry the assignment generation they were fetched in; a record whose partition has moved on to another
/// generation (revoked, lost, re-assigned) is dropped before it reaches the tracker, a batch or an offset.
struct BatchLoop {
    let service: WorkerService
    let processor: BatchProcessor
    let store: any ObservationStore
    let deadLetters: KafkaProducer
    let consumer: KafkaConsumer
    let prewarm = VersionPrewarm()

    private var configuration: WorkerConfiguration { service.configuration }
    var metrics: Metrics { service.metrics }
    var logger: Logger { service.logger }

    /// Runs until the consumer stops (stop requested) or, with `--until-caught-up`, until caught up.
    /// - Returns: true when it ended because every assigned partition was caught up.
    func run() async -> Bool {
        var pending: [KafkaMessage] = []
        pending.reserveCapacity(configuration.batchSize)
        // At most one batch is being made durable while the next one is collected, decoded and mapped.
        var inFlight: Task<Void, Never>?
        var batchStarted = ContinuousClock.now
        var nextCaughtUpCheck = ContinuousClock.now
        let batchWindow = Duration.milliseconds(configuration.batchMilliseconds)
        let tracker = service.tracker
        while true {
            let wait = pending.isEmpty ? Duration.milliseconds(250) : max(.zero, batchStarted + batchWindow - .now)
            switch await consumer.next(upTo: configuration.batchSize - pending.count, timeout: wait) {
            case .events(let events):
                var sawRecord = false
                for event in events {
                    switch event {
                    case .message(let message):
                        sawRecord = true
                        guard tracker.accept(message) else {
                            metrics.increment("dvp_stale_records_dropped_total")
                            continue
                        }
                        if pending.isEmpty { batchStarted = .now }
                        pending.append(message)
                    case .partitionEOF(let topic, let partition, let offset, let generation):
                        tracker.reachedEnd(
                            KafkaTopicPartition(topic: topic, partition: partition), nextOffset: offset,
                            generation: generation)
                    case .error(let error):
                        handle(error)
                    }
                }
                if sawRecord { service.health.brokersUp() }
                if pending.count >= configuration.batchSize {
                    inFlight = await dispatch(pending, after: inFlight)
                    pending.removeAll(keepingCapacity: true)
                }
            case .timedOut:
                if !pending.isEmpty && ContinuousClock.now >= batchStarted + batchWindow {
                    inFlight = await dispatch(pending, after: inFlight)
                    pending.removeAll(keepingCapacity: true)
                }
            case .finished:
                if !pending.isEmpty { inFlight = await dispatch(pending, after: inFlight) }
                await inFlight?.value
                return false
            }
            if configuration.untilCaughtUp && pending.isEmpty && ContinuousClock.now >= nextCaughtUpCheck
                && service.tracker.allReachedEnd
            {
                // Nothing left to read: let the batch in flight become durable before judging.
                await inFlight?.value
                inFlight = nil
            }
            if configuration.untilCaughtUp && pending.isEmpty && inFlight == nil
                && ContinuousClock.now >= nextCaughtUpCheck && service.tracker.isCaughtUp
            {
                // Done only once the caught-up offsets are committed; a refused commit (the group is rebalancing,
                // e.g. another member just left) means: keep consuming until the group is stable, then try again.
                do {
                    try await consumer.commit()
                    logger.info("caught up", [("partitions", .int(Int64(service.tracker.assignedPartitions.count)))])
                    return true
                } catch {
                    logger.info("caught up, but the commit was refused; continuing until the group is stable",
                                [("error", .string("\(error)"))])
                    nextCaughtUpCheck = .now + .seconds(1)
                }
            }
        }
    }

    private func handle(_ error: KafkaError) {
        if error.isFatal {
            logger.error("fatal consumer error; stopping", [("error", .string("\(error)"))])
            service.requestStop()
        } else if error.code.name == "_ALL_BROKERS_DOWN" {
            service.health.brokersDown(error.message)
            logger.warning("all brokers down", [("error", .string("\(error)"))])
        } else {
            logger.warning("consumer error (librdkafka recovers by itself)", [("error", .string("\(error)"))])
        }
    }

    // MARK: - One batch

    /// A batch decoded and mapped, waiting for its turn to be made durable.
    struct Prepared: Sendable {
        /// The batch's records still in their partition's current generation when it was prepared.
        var messages: [KafkaMessage]
        var output: BatchProcessor.Output
    }

    /// Decodes and maps `pending` (pure CPU) while the previous batch is still in flight, waits for that one to
    /// be durable, then starts making this one durable. Batches become durable, and store offsets, in order.
    /// - Returns: the task making this batch durable.
    private func dispatch(_ pending: [KafkaMessage], after previous: Task<Void, Never>?) async -> Task<Void, Never> {
        let prepared = await prepare(pending)
        await previous?.value
        return Task { [self] in await flush(prepared) }
    }

    /// Keeps the records still in their partition's current generation, decodes them, and maps those whose
    /// version the store may not hold yet (known stored versions: the version cache, pre-warmed with one read
    /// when it pays).
    private func prepare(_ pending: [KafkaMessage]) async -> Prepared {
        let tracker = service.tracker
        let messages = pending.filter(tracker.isCurrent)
        var output = processor.decode(messages)
        let bounds = await versionBounds(output.decoded.map(\.value.identity))
        processor.map(&output, storedAtLeast: bounds)
        return Prepared(messages: messages, output: output)
    }

    /// Makes one prepared batch durable and stores its offsets, retrying failing dependencies with backoff.
    private func flush(_ batch: Prepared) async {
        let tracker = service.tracker
        var batch = batch
        // A revoke while the batch waited for its turn: process again without the revoked partitions (rare).
        if !batch.messages.allSatisfy(tracker.isCurrent) {
            batch = await prepare(batch.messages)
        }
        let (messages, output) = (batch.messages, batch.output)
        guard !messages.isEmpty else { return }
        let started = ContinuousClock.now
        tracker.beginBatch()
        metrics.increment("dvp_records_consumed_total", by: Double(messages.count))
        let generations = Array(output.lastRecords.values)
        let abandoned = { @Sendable [service] in
            service.abandonDeadlinePassed || !generations.contains(where: service.tracker.isCurrent)
        }

        async let deadLettered = deliverDeadLetters(output, abandoned: abandoned)
        let upserted = await upsert(output.mapped, abandoned: abandoned)
        let dlqDone = await deadLettered
        guard upserted, dlqDone else {
            logger.warning("batch abandoned before it was durable; it will be redelivered",
                           [("records", .int(Int64(messages.count)))])
            tracker.abandon(Array(output.lastRecords.values))
            tracker.endBatch(durable: [])
            return
        }
        countSkipped(output.skipped)
        // Only records still in their partition's current generation store offsets (checked by the consumer
        // atomically with the store): a partition lost meanwhile is re-read from its committed offset.
        // Never past an abandoned batch of the same partition and generation (the stop deadline passed).
        let last = tracker.storable(Array(output.lastRecords.values))
        let refused = consumer.storeOffsets(after: last)
        if !refused.isEmpty {
            metrics.increment("dvp_offset_store_refused_total", by: Double(refused.count))
            logger.info("offsets not stored for partitions revoked meanwhile; their next owner re-reads them",
                        [("partitions", .string(WorkerService.describe(Array(refused.keys))))])
        }
        tracker.endBatch(durable: last.filter { refused[$0.topicPartition] == nil })
        metrics.observeBatchDuration((ContinuousClock.now - started).seconds)
        logger.debug("batch durable", [("records", .int(Int64(messages.count))),
                                       ("dead_lettered", .int(Int64(output.deadLetters.count)))])
    }

    /// Upserts the mapped records (minus those the version cache proves cannot change anything).
    /// - Returns: false if abandoned (stop deadline passed, or every partition of the batch was revoked).
    private func upsert(_ mapped: [BatchProcessor.Mapped], abandoned: @Sendable () -> Bool) async -> Bool {
        guard !mapped.isEmpty else { return true }
        // The previous batch may have raised bounds since this one was prepared.
        let bounds = service.versionCache.storedAtLeast(mapped.map(\.record.identity))
        var toStore: [BatchProcessor.Mapped] = []
        toStore.reserveCapacity(mapped.count)
        var skipped: [UpsertOutcome: Int] = [:]
        for (item, bound) in zip(mapped, bounds) {
            if let bound, item.record.version <= bound {
                skipped[item.record.version == bound ? .unchanged : .stale, default: 0] += 1
            } else {
                toStore.append(item)
            }
        }
        countSkipped(skipped)
        guard !toStore.isEmpty else { return true }
        let records = toStore.map(\.record)
        var backoff = Backoff()
        while true {
            do {
                let outcomes = try await store.upsert(records)
                if backoff.attempt > 0 {
                    service.health.storeRecovered()
                    service.resumeAfterRecovery()
                    logger.info("store recovered", [("attempts", .int(Int64(backoff.attempt)))])
                }
                var counts: [UpsertOutcome: Int] = [:]
                var learned: [(ObservationIdentity, Int64)] = []
                learned.reserveCapacity(records.count)
                for (record, outcome) in zip(records, outcomes) {
                    counts[outcome, default: 0] += 1
                    learned.append((record.identity, outcome == .stale ? record.version + 1 : record.version))
                }
                for (outcome, n) in counts {
                    metrics.increment("dvp_upserts_total", labels: "outcome=\"\(outcome.rawValue)\"", by: Double(n))
                }
                service.versionCache.record(learned)
                return true
            } catch {
                metrics.increment("dvp_store_errors_total")
                service.health.storeFailed("\(error)")
                if backoff.attempt == 0 { service.pauseForFailure() }
                let delay = backoff.next()
                logger.error("store upsert failed; retrying",
                             [("error", .string("\(error)")), ("retry_in_ms", .int(Int64(delay.seconds * 1000)))])
                if abandoned() { return false }
                try? await Task.sleep(for: delay)
                if abandoned() { return false }
            }
        }
    }

    /// Counts events answered by the version cache (never sent to the store) as their outcome.
    private func countSkipped(_ skipped: [UpsertOutcome: Int]) {
        for (outcome, n) in skipped {
            metrics.increment("dvp_upserts_total", labels: "outcome=\"\(outcome.rawValue)\"", by: Double(n))
            metrics.increment("dvp_skipped_not_newer_total", by: Double(n))
        }
    }

    /// The version cache's bounds, pre-warmed first (when it pays, see ``VersionPrewarm``) with one read of the
    /// stored versions of the identities it does not know. A failed read only costs the shortcut.
    private func versionBounds(_ identities: [ObservationIdentity]) async -> [Int64?] {
        let cache = service.versionCache
        let bounds = cache.storedAtLeast(identities)
        guard cache.isEnabled, let reader = store as? any ObservationVersionReader else { return bounds }
        let unknown = zip(identities, bounds).compactMap { $1 == nil ? $0 : nil }
        guard unknown.count * 4 >= identities.count, prewarm.shouldRead(),
            let stored = try? await reader.storedVersions(for: unknown)
        else { return bounds }
        prewarm.observe(found: stored.count, of: unknown.count)
        guard !stored.isEmpty else { return bounds }
        cache.record(stored.map { ($0.key, $0.value) })
        return cache.storedAtLeast(identities)
    }
}
