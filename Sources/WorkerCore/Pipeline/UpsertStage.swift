import DailyValueContract
import Essentials
import Kafka
import Observability
import ObservationMapping
import StoreCore

/// The store stage: upserts a batch's mapped records (minus those the version cache proves cannot change
/// anything), retrying with backoff while the store fails with a retriable error (readiness false, which pauses
/// fetching); a store error retrying cannot fix (SQL, permissions, schema) ends the stage with it. Learns the stored
/// versions into the ``VersionCache``. Records the store's server refuses (``UpsertResult/refused(reason:)``) come back as
/// dead-letter records, with the server's reason; so do the store's `conflict`s with `--on-version-conflict
/// dead-letter` (``VersionConflicts``, which logs them either way).
struct UpsertStage: Sendable {
    /// What became of a batch.
    struct Result: Sendable {
        /// How the retries ended: `done` when every record was decided or refused.
        var ending: RetryLoop.Ending<StoreError>
        /// Dead-letter records of the refused Observations (and dead-lettered conflicts), to deliver before the
        /// batch's offsets are stored.
        var refused: [DeadLetterRecord] = []
    }

    let store: any ObservationStore
    let deadLetter: DeadLetter
    let versionCache: VersionCache
    let health: WorkerHealth
    let metrics: Metrics
    let logger: Logger
    let conflicts: VersionConflicts
    let erasure: ErasureCheck

    /// Makes `mapped` durable in the store (every record decided or refused).
    func upsert(_ mapped: [BatchProcessor.Mapped], abandoned: @Sendable () -> Bool) async -> Result {
        guard !mapped.isEmpty else { return Result(ending: .done) }
        // The previous batch may have raised bounds since this one was prepared.
        let bounds = versionCache.storedAtLeast(mapped.map(\.versionKey))
        let refusedPersons = await refusedAmongCached(mapped, bounds)
        var toStore: [BatchProcessor.Mapped] = []
        toStore.reserveCapacity(mapped.count)
        var skipped: [UpsertOutcome: Int] = [:]
        for (index, (item, bound)) in zip(mapped, bounds).enumerated() {
            if refusedPersons?[index] != true, let known = bound?.outcome(of: item.record) {
                skipped[known, default: 0] += 1
            } else {
                toStore.append(item)
            }
        }
        metrics.countSkipped(skipped)
        guard !toStore.isEmpty else { return Result(ending: .done) }
        let records = toStore.map(\.record)
        var refused: [DeadLetterRecord] = []
        let ending = await RetryLoop(logger: logger).run(
            "store upsert failed", isRetriable: \StoreError.isRetriable, abandoned: abandoned,
            failed: { (error: StoreError) in
                metrics.increment(.storeErrors)
                health.storeFailed(error)
            },
            recovered: { attempts in
                health.storeRecovered()
                logger.info("store recovered", [("attempts", .int(Int64(attempts)))])
            },
            attempt: {
                do {
                    let results = try await store.upsert(records)
                    precondition(
                        results.count == toStore.count,
                        "the store returned \(results.count) results for \(toStore.count) records")
                    refused = settle(toStore, results)
                    return nil
                } catch let error as StoreError {
                    return error
                } catch {
                    // Stores throw StoreError; anything else is a defect no retry cures.
                    return StoreError(.usage, "unexpected \(type(of: error)): \(error)")
                }
            })
        // An abandoned retry must not hold fetching paused: the next batch tries the store again (and fails fast if it
        // is still down, pausing again).
        if case .abandoned = ending { health.storeRecovered() }
        return Result(ending: ending, refused: refused)
    }

    /// `letters` without the records of persons the erasure ledger refuses (dropped, never dead-lettered with their
    /// content: docs/PRIVACY.md), reading the ledger with the store stage's retries: while the store fails, the
    /// worker is not ready and fetching pauses, and the dead letters wait, as the batch's upserts do.
    func withoutRefusedPersons(
        _ letters: [DeadLetterRecord], abandoned: @Sendable () -> Bool
    ) async -> (RetryLoop.Ending<StoreError>, [DeadLetterRecord]) {
        guard !letters.isEmpty, erasure.ledger != nil else { return (.done, letters) }
        var kept = letters
        let ending = await RetryLoop(logger: logger).run(
            "erasure ledger read failed", isRetriable: \StoreError.isRetriable, abandoned: abandoned,
            failed: { (error: StoreError) in
                metrics.increment(.storeErrors)
                health.storeFailed(error)
            },
            recovered: { _ in health.storeRecovered() },
            attempt: {
                do {
                    guard let refused = try await erasure.refused(letters.map(\.original)) else { return nil }
                    kept = zip(letters, refused).filter { !$0.1 }.map(\.0)
                    return nil
                } catch let error as StoreError {
                    return error
                } catch {
                    return StoreError(.usage, "unexpected \(type(of: error)): \(error)")
                }
            })
        if case .abandoned = ending { health.storeRecovered() }
        return (ending, kept)
    }

    /// Which of `mapped` belong to persons the erasure ledger refuses, when the version cache could answer any
    /// record (nil: none refused, or nothing to answer). Those go to the store, which decides them `erased`. When the
    /// ledger cannot be read, every record goes to the store.
    private func refusedAmongCached(
        _ mapped: [BatchProcessor.Mapped], _ bounds: [VersionCache.Bound?]
    ) async -> [Bool]? {
        guard bounds.contains(where: { $0 != nil }) else { return nil }
        do {
            return try await erasure.refused(count: mapped.count) { mapped[$0].record.identity.patient }
        } catch {
            logger.warning(
                "the erasure ledger could not be read; the version cache answers nothing this batch",
                [("error", .string("\(error)"))])
            return [Bool](repeating: true, count: mapped.count)
        }
    }

    /// Learns the decided records (``learn(_:_:)``) and returns the dead-letter records of the refused ones (with the
    /// server's reason) and of the reported conflicts.
    private func settle(_ items: [BatchProcessor.Mapped], _ results: [UpsertResult]) -> [DeadLetterRecord] {
        let outcomes = results.compactMap(\.outcome)
        // Every record decided (SQL stores always): no copy of the items.
        if outcomes.count == items.count { return conflicts.report(learn(items, outcomes)) }
        var decided: [BatchProcessor.Mapped] = []
        var refused: [DeadLetterRecord] = []
        for (item, result) in zip(items, results) {
            if case .refused(let reason) = result {
                refused.append(
                    deadLetter.record(for: item.message, stage: .store, className: "StoreRejected", reason: reason))
            } else {
                decided.append(item)
            }
        }
        if !refused.isEmpty {
            // The reasons stay in the dead-letter records: a server's text can name the patient.
            logger.warning(
                "the store refused records; dead-lettering them (reasons in the dead-letter records)",
                [("records", .int(Int64(refused.count)))])
        }
        return refused + conflicts.report(learn(decided, outcomes))
    }

    /// Counts the outcomes and records the versions the store now holds at least (with the clinical value known
    /// `unchanged` at it); returns the Kafka records of the `conflict`s.
    private func learn(_ items: [BatchProcessor.Mapped], _ outcomes: [UpsertOutcome]) -> [KafkaMessage] {
        precondition(
            outcomes.count == items.count, "the store returned \(outcomes.count) outcomes for \(items.count) records")
        let kinds = UpsertOutcome.allCases
        var counts = [Int](repeating: 0, count: kinds.count)
        var learned: [(VersionCache.Key, Int64, UInt64)] = []
        learned.reserveCapacity(items.count)
        var conflicting: [KafkaMessage] = []
        // By index: iterating the items would copy each one (a retain and release per field).
        for index in items.indices {
            let outcome = outcomes[index]
            counts[kinds.firstIndex(of: outcome)!] += 1
            let version = items[index].record.version
            switch outcome {
            case .inserted, .updated, .unchanged:
                // The store holds this clinical value at this version, or took it as a duplicate of the one it holds.
                learned.append((items[index].versionKey, version, VersionCache.valueHash(items[index].record)))
            case .stale: learned.append((items[index].versionKey, version + 1, 0))
            case .retracted: learned.append((items[index].versionKey, version, 0))
            case .conflict:
                learned.append((items[index].versionKey, version, 0))
                conflicting.append(items[index].message)
            case .expired, .erased: break  // nothing stored: nothing to learn
            }
        }
        for (outcome, n) in zip(kinds, counts) where n > 0 {
            metrics.increment(.upserts, label: outcome.rawValue, by: Double(n))
        }
        versionCache.record(learned)
        return conflicting
    }
}
