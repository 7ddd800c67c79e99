import Essentials
import Kafka
import ObservationUpsert

/// The store stage: upserts a batch's mapped records (minus those the version cache proves cannot change
/// anything), retrying with backoff (consumption paused, readiness false) while the store fails. Learns the stored
/// versions into the ``VersionCache``. Records the store's server refuses (``UpsertRejections``) come back as
/// dead-letter records, with the server's reason.
struct UpsertStage: Sendable {
    /// What became of a batch.
    struct Result: Sendable {
        /// False if abandoned (stop deadline passed, or every partition of the batch was revoked).
        var durable: Bool
        /// Dead-letter records of the refused Observations, to deliver before the batch's offsets are stored.
        var refused: [DeadLetterRecord] = []
    }

    let store: any ObservationStore
    let deadLetter: DeadLetter
    let versionCache: VersionCache
    let health: WorkerHealth
    let pause: ConsumptionPause
    let metrics: Metrics
    let logger: Logger

    /// Makes `mapped` durable in the store (every record decided or refused).
    func upsert(_ mapped: [BatchProcessor.Mapped], abandoned: @Sendable () -> Bool) async -> Result {
        guard !mapped.isEmpty else { return Result(durable: true) }
        // The previous batch may have raised bounds since this one was prepared.
        let bounds = versionCache.storedAtLeast(mapped.map(\.versionKey))
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
        metrics.countSkipped(skipped)
        guard !toStore.isEmpty else { return Result(durable: true) }
        let records = toStore.map(\.record)
        let retrying = RetryingStage(pause: pause, logger: logger)
        var refused: [DeadLetterRecord] = []
        let durable = await retrying.run(
            "store upsert failed; retrying", abandoned: abandoned,
            failed: { failure in
                metrics.increment("dvp_store_errors_total")
                health.storeFailed(failure.cause ?? StoreError(.connection, failure.error))
            },
            recovered: { attempts in
                health.storeRecovered()
                logger.info("store recovered", [("attempts", .int(Int64(attempts)))])
            },
            attempt: {
                do {
                    learn(toStore, try await store.upsert(records))
                    return nil
                } catch let refusal as UpsertRejections {
                    let decided = zip(toStore, refusal.outcomes).compactMap { item, outcome in
                        outcome.map { (item, $0) }
                    }
                    learn(decided.map(\.0), decided.map(\.1))
                    refused = refusal.reasons.sorted { $0.key < $1.key }.map { index, reason in
                        deadLetter.record(
                            for: toStore[index].message, stage: .store, className: "StoreRejected", reason: reason)
                    }
                    // The reasons stay in the dead-letter records: a server's text can name the patient.
                    logger.warning(
                        "the store refused records; dead-lettering them (reasons in the dead-letter records)",
                        [("records", .int(Int64(refused.count)))])
                    return nil
                } catch {
                    return RetryingStage.Failure(error: "\(error)", cause: error)
                }
            })
        return Result(durable: durable, refused: refused)
    }

    /// Counts the outcomes and records the versions the store now holds at least.
    private func learn(_ items: [BatchProcessor.Mapped], _ outcomes: [UpsertOutcome]) {
        precondition(outcomes.count == items.count, "the store returned \(outcomes.count) outcomes for \(items.count) records")
        let kinds = UpsertOutcome.allCases
        var counts = [Int](repeating: 0, count: kinds.count)
        var learned: [(VersionCache.Key, Int64)] = []
        learned.reserveCapacity(items.count)
        // By index: iterating the items would copy each one (a retain and release per field).
        for index in items.indices {
            let outcome = outcomes[index]
            counts[kinds.firstIndex(of: outcome)!] += 1
            let version = items[index].record.version
            learned.append((items[index].versionKey, outcome == .stale ? version + 1 : version))
        }
        for (outcome, n) in zip(kinds, counts) where n > 0 {
            metrics.increment("dvp_upserts_total", labels: "outcome=\"\(outcome.rawValue)\"", by: Double(n))
        }
        versionCache.record(learned)
    }
}
