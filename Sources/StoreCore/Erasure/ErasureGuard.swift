import DailyValueContract
import ObservationMapping
import Synchronization

/// The erasure ledger as a store's batches check it: the refused persons, cached per ledger generation.
///
/// A batch reads the ledger's generation inside its transaction, under the lock an erasure takes exclusively to
/// write its entry (PostgreSQL: the shared advisory lock retention uses; SQLite: the write lock); when it changed,
/// the batch reloads the refused set in that same transaction. So a batch either finished before the entry, or sees
/// it. With an empty ledger a batch hashes nothing.
package final class ErasureGuard: Sendable {
    private struct State {
        var generation: Int64
        var refused: RefusedPersons
        /// Verdicts per patient id under `generation`: a person's id is hashed once, not once per event.
        var verdicts: [String: Bool] = [:]
    }

    private let key: ErasureKey?
    private let state = Mutex<State?>(nil)
    /// Verdicts kept at most (then forgotten, and recomputed as ids come again).
    private static let verdictLimit = 1 << 20

    /// - Parameter key: the key events' persons are hashed with (the worker's id key or erasure key); nil for a store
    ///   opened without one, which refuses to write while its ledger has entries.
    package init(key: ErasureKey?) { self.key = key }

    /// The key, for erasures made through this store.
    package var erasureKey: ErasureKey? { key }

    /// For each record of `batch`, whether its person is refused (nil when none is). `generation` is the ledger's,
    /// read under the batch's lock; `load` reads the refused set, in the same transaction, when it changed. With an
    /// empty ledger no patient id is read.
    /// - Throws: ``StoreError`` (`usage`) when the ledger has entries and the store has no key, or another key's.
    package func refusedMask(
        _ batch: [ObservationRecord], generation: Int64, load: () throws -> RefusedPersons
    ) throws -> [Bool]? {
        if state.withLock({ $0?.generation != generation }) {
            install(generation == 0 ? Self.empty : try load(), generation: generation)
        }
        return try mask(count: batch.count) { batch[$0].identity.patient }
    }

    /// For each of `patients`, whether the person is refused (nil when none is), with a ledger read that suspends
    /// (callers outside a store: the worker's version cache, dead letters, redrive, the gateway).
    package func refusedMask(
        _ patients: [String], generation: Int64, load: () async throws -> RefusedPersons
    ) async throws -> [Bool]? {
        if state.withLock({ $0?.generation != generation }) {
            install(generation == 0 ? Self.empty : try await load(), generation: generation)
        }
        return try mask(count: patients.count) { patients[$0] }
    }

    /// For each of `patients`, whether the person is refused (nil when none is), by a ledger already read at
    /// `generation` (the ingest gateway: requests are checked from memory, never waiting for the store).
    package func refusedMask(_ patients: [String], generation: Int64, loaded: RefusedPersons) throws -> [Bool]? {
        if state.withLock({ $0?.generation != generation }) { install(loaded, generation: generation) }
        return try mask(count: patients.count) { patients[$0] }
    }

    /// Whether the ledger at `generation` refuses anyone (reading it with `load` when the generation changed): a
    /// caller with nothing refused skips gathering patient ids.
    package func refusesAnyone(generation: Int64, load: () async throws -> RefusedPersons) async throws -> Bool {
        if state.withLock({ $0?.generation != generation }) {
            install(generation == 0 ? Self.empty : try await load(), generation: generation)
        }
        return state.withLock { !($0?.refused.pseudonyms.isEmpty ?? true) }
    }

    /// The ledger at generation 0, which never had an entry (``ObservationErasing/ledgerGeneration()``): not read.
    private static let empty = RefusedPersons(pseudonyms: [], keyFingerprint: nil)

    private func install(_ refused: RefusedPersons, generation: Int64) {
        state.withLock { $0 = State(generation: generation, refused: refused) }
    }

    private func mask(count: Int, patient: (Int) -> String) throws -> [Bool]? {
        try state.withLock { state -> [Bool]? in
            guard var current = state, !current.refused.pseudonyms.isEmpty else { return nil }
            state = nil  // the verdicts are edited in place (no copy of the dictionary)
            defer { state = current }
            let key = try Self.checked(key, against: current.refused.keyFingerprint)
            if current.verdicts.count > Self.verdictLimit { current.verdicts = [:] }
            var any = false
            let mask = (0..<count).map { index in
                let patient = patient(index)
                if let known = current.verdicts[patient] {
                    any = any || known
                    return known
                }
                let verdict = current.refused.pseudonyms.contains(key.pseudonym(of: patient))
                current.verdicts[patient] = verdict
                any = any || verdict
                return verdict
            }
            return any ? mask : nil
        }
    }

    /// `key`, when it is the one the ledger was written under.
    /// - Throws: ``StoreError`` (`usage`) otherwise.
    package static func checked(_ key: ErasureKey?, against fingerprint: String?) throws -> ErasureKey {
        guard let key else {
            throw StoreError(
                .usage,
                "the store has an erasure ledger and was opened without the key its persons are hashed with: "
                    + "give the worker's id key (DVP_ID_KEY or --id-key-file) or --erasure-key-file")
        }
        if let fingerprint, fingerprint != key.fingerprint {
            throw StoreError(
                .usage,
                "the store's erasure ledger was written under another key (fingerprint \(fingerprint), given "
                    + "\(key.fingerprint)): give the key the workers of this store use")
        }
        return key
    }
}
