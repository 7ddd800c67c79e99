import DailyValueContract
import Essentials
import HTTPClient
import ObservationMapping
import StoreCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension FHIRObservationStore {
    /// Decides every chunk (each at most one Bundle's worth of distinct identities), up to
    /// ``FHIRStoreConfiguration/bundlesInFlight`` at once: a chunk's read and write Bundles overlap the others'.
    /// The winners of one batch are distinct identities, so their order does not matter; batches themselves are
    /// written one after the other by the caller, which keeps each partition's order.
    ///
    /// A chunk that fails does not cancel the others (a cancelled create could not be settled): every chunk ends,
    /// then the first failure in chunk order is thrown. What the others wrote stays written; a retry of the batch
    /// finds it `unchanged`.
    func decideConcurrently(
        _ chunks: [[Int]], of batch: [ObservationRecord], into decided: inout [Int: UpsertOutcome],
        refused: inout [Int: String]
    ) async throws {
        struct ChunkResult: Sendable {
            var position: Int
            var decided: [Int: UpsertOutcome] = [:]
            var refused: [Int: String] = [:]
            var failure: (any Error)?
        }
        let results = await withTaskGroup(of: ChunkResult.self) { group in
            var results: [ChunkResult] = []
            var next = 0
            func start() {
                let (position, chunk) = (next, chunks[next])
                next += 1
                group.addTask {
                    var result = ChunkResult(position: position)
                    do {
                        try await self.decide(chunk, of: batch, into: &result.decided, refused: &result.refused)
                    } catch {
                        result.failure = error
                    }
                    return result
                }
            }
            while next < min(chunks.count, configuration.bundlesInFlight) { start() }
            for await result in group {
                results.append(result)
                if next < chunks.count { start() }
            }
            return results.sorted { $0.position < $1.position }
        }
        for result in results {
            decided.merge(result.decided) { $1 }
            refused.merge(result.refused) { $1 }
        }
        if let failure = results.lazy.compactMap(\.failure).first { throw failure }
    }

    /// Decides the winners `chunk` (batch indices, at most one Bundle's worth): one read of their current copies,
    /// the version rule, one `batch` Bundle of guarded PUTs for those that win; those that lost a race (409/412)
    /// are read and decided again, at most ``FHIRStoreConfiguration/conflictAttempts`` rounds (entries throttled
    /// with 429/503 count as such rounds too).
    /// - Throws: ``StoreError`` for anything not decided per record (network, 5xx, credentials, conflicts that
    ///   outlast the attempts); records already written stay written, and a retry finds them `unchanged`.
    func decide(
        _ chunk: [Int], of batch: [ObservationRecord], into decided: inout [Int: UpsertOutcome],
        refused: inout [Int: String]
    ) async throws {
        var pending = chunk
        var round = 0
        var throttled = Backoff(initial: .seconds(1), maximum: configuration.maxRetryAfter)
        var lastRoundThrottled = false  // every entry pending again was throttled (429/503), none conflicted
        while !pending.isEmpty {
            round += 1
            guard round <= configuration.conflictAttempts else {
                let (code, state) = lastRoundThrottled ? ("429", "throttled") : ("412", "conflicted")
                throw StoreError(
                    .busy, nativeCode: code,
                    "\(pending.count) Observations still \(state) after \(configuration.conflictAttempts) rounds")
            }
            // The read Bundle also reads the erasure ledger's state: a record of a person erased or withdrawn
            // before this round is `erased`, never sent (``erase(_:)`` deletes what a round before the entry wrote).
            let (copies, ledger) = try await currentCopiesAndLedger(pending.map { batch[$0].resourceID })
            let erasedMask = try await refusedMask(pending.map { batch[$0].identity.patient }, ledger: ledger)
            var writes: [(index: Int, write: FHIRBundle.Write)] = []
            for (position, index) in pending.enumerated() {
                let record = batch[index]
                let copy = copies[record.resourceID]
                if erasedMask?[position] == true {
                    decided[index] = .erased
                } else if let copy, copy.eventVersion == nil {
                    refused[index] = Self.foreignCopyReason(
                        record.resourceID, versionTagSystem: configuration.versionTagSystem)
                } else if let stored = copy?.eventVersion, stored >= record.version {
                    decided[index] = stored == record.version ? .unchanged : .stale
                } else {
                    writes.append((index, FHIRBundle.Write(record: record, ifMatch: copy?.versionId)))
                }
            }
            pending = []
            guard !writes.isEmpty else { return }
            let body = FHIRBundle.writes(writes.map(\.write), versionTagSystem: configuration.versionTagSystem)
            let response = try await rest.send("POST", "", body: body)
            let entries = try FHIRBundle.entries(of: response, expected: writes.count)
            for ((index, write), entry) in zip(writes, entries) {
                switch entry.status {
                case 200..<300:
                    guard write.ifMatch == nil else {
                        decided[index] = .updated
                        continue
                    }
                    switch try await settleCreate(write.record, entry) {
                    case .decided(let outcome): decided[index] = outcome
                    case .refused(let reason): refused[index] = reason
                    }
                case 409, 412, 404, 410, 429, 503:
                    // Another writer got there first (or the copy vanished, or the entry was throttled): decide again.
                    pending.append(index)
                case 400, 422:
                    refused[index] = entry.outcomeText ?? "the FHIR server refused the Observation (\(entry.status))"
                case 401, 403:
                    throw StoreError(
                        .unauthorized, nativeCode: String(entry.status),
                        "the FHIR server refused the credentials for a batch entry: \(entry.outcomeSummary)")
                default:
                    throw StoreError(
                        entry.status >= 500 ? .connection : .query, nativeCode: String(entry.status),
                        "PUT Observation/\(write.record.resourceID): \(entry.status), \(entry.outcomeSummary)")
                }
            }
            let throttledEntries = entries.filter { [429, 503].contains($0.status) }.count
            lastRoundThrottled = throttledEntries == pending.count
            if throttledEntries > 0, round < configuration.conflictAttempts {
                // A Bundle entry has no headers, so no Retry-After: back off (0.5-1 s, doubling, capped).
                try await Task.sleep(for: throttled.next())
            }
        }
    }

    /// The current copies of `ids` that the server has (one `batch` Bundle of reads).
    func currentCopies(_ ids: [String]) async throws -> [String: FHIRCopy] {
        try await currentCopies(ids, ledgerState: false).copies
    }

    /// ``currentCopies(_:)`` and the erasure ledger's state, read in the same Bundle.
    func currentCopiesAndLedger(_ ids: [String]) async throws -> ([String: FHIRCopy], FHIRErasureLedger.State) {
        let (copies, ledger) = try await currentCopies(ids, ledgerState: true)
        return (copies, ledger ?? FHIRErasureLedger.State(generation: 0))
    }

    private func currentCopies(_ ids: [String], ledgerState: Bool) async throws
        -> (copies: [String: FHIRCopy], ledger: FHIRErasureLedger.State?)
    {
        let response = try await rest.send("POST", "", body: FHIRBundle.reads(ids, ledgerState: ledgerState))
        var entries = try FHIRBundle.entries(of: response, expected: ids.count + (ledgerState ? 1 : 0))
        let ledger = ledgerState ? try Self.ledgerState(entries.removeLast()) : nil
        var copies: [String: FHIRCopy] = [:]
        for (id, entry) in zip(ids, entries) {
            switch entry.status {
            case 200..<300:
                guard let resource = entry.resource, var copy = copy(resource) else {
                    throw StoreError(.query, nativeCode: String(entry.status), "GET Observation/\(id): no resource")
                }
                if copy.versionId.isEmpty, let versionId = entry.versionId { copy.versionId = versionId }
                copies[id] = copy
            case 404, 410:
                continue
            case 401, 403:
                throw StoreError(.unauthorized, nativeCode: String(entry.status), "GET Observation/\(id) refused")
            default:
                throw StoreError(
                    entry.status >= 500 || entry.status == 429 ? .connection : .query,
                    nativeCode: String(entry.status), "GET Observation/\(id): \(entry.status), \(entry.outcomeSummary)")
            }
        }
        return (copies, ledger)
    }
}
