import Essentials
import ObservationUpsert

/// The store stage: upserts a batch's mapped records (minus those the version cache proves cannot change
/// anything), retrying with backoff (consumption paused, readiness false) while the store fails. Learns the stored
/// versions into the ``VersionCache``.
struct UpsertStage: Sendable {
    let store: any ObservationStore
    let versionCache: VersionCache
    let health: WorkerHealth
    let pause: ConsumptionPause
    let metrics: Metrics
    let logger: Logger

    /// Makes `mapped` durable in the store.
    /// - Returns: false if abandoned (stop deadline passed, or every partition of the batch was revoked).
    func upsert(_ mapped: [BatchProcessor.Mapped], abandoned: @Sendable () -> Bool) async -> Bool {
        guard !mapped.isEmpty else { return true }
        // The previous batch may have raised bounds since this one was prepared.
        let bounds = versionCache.storedAtLeast(mapped.map(\.record.identity))
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
        guard !toStore.isEmpty else { return true }
        let records = toStore.map(\.record)
        let retrying = RetryingStage(pause: pause, logger: logger)
        return await retrying.run(
            "store upsert failed; retrying", abandoned: abandoned,
            failed: { failure in
                metrics.increment("dvp_store_errors_total")
                health.storeFailed(failure.error)
            },
            recovered: { attempts in
                health.storeRecovered()
                logger.info("store recovered", [("attempts", .int(Int64(attempts)))])
            },
            attempt: {
                do {
                    learn(records, try await store.upsert(records))
                    return nil
                } catch {
                    return RetryingStage.Failure(error: "\(error)")
                }
            })
    }

    /// Counts the outcomes and records the versions the store now holds at least.
    private func learn(_ records: [ObservationRecord], _ outcomes: [UpsertOutcome]) {
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
        versionCache.record(learned)
    }
}
