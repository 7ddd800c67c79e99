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
    /// Verdicts kept at most (then forgotten, and recomputed as ids come again): a few MB per guard.
    private static let verdictLimit = 1 << 16

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
        let refused = try cached(generation) ?? install(generation == 0 ? Self.empty : try load(), generation)
        return try mask(count: batch.count, generation, refused) { batch[$0].identity.patient }
    }

    /// For each of `patients`, whether the person is refused (nil when none is), with a ledger read that suspends
    /// (callers outside a store: the worker's version cache, dead letters, redrive, the gateway).
    package func refusedMask(
        _ patients: [String], generation: Int64, load: () async throws -> RefusedPersons
    ) async throws -> [Bool]? {
        let refused = try await refused(at: generation, load: load)
        return try mask(count: patients.count, generation, refused) { patients[$0] }
    }

    /// For each of `patients`, whether the person is refused (nil when none is), by a ledger already read at
    /// `generation` (the ingest gateway: requests are checked from memory, never waiting for the store).
    package func refusedMask(_ patients: [String], generation: Int64, loaded: RefusedPersons) throws -> [Bool]? {
        let refused = cached(generation) ?? install(loaded, generation)
        return try mask(count: patients.count, generation, refused) { patients[$0] }
    }

    /// Whether the ledger at `generation` refuses anyone (reading it with `load` when the generation changed): a
    /// caller with nothing refused skips gathering patient ids.
    package func refusesAnyone(generation: Int64, load: () async throws -> RefusedPersons) async throws -> Bool {
        !(try await refused(at: generation, load: load)).pseudonyms.isEmpty
    }

    /// The ledger at generation 0, which never had an entry (``ObservationErasing/ledgerGeneration()``): not read.
    private static let empty = RefusedPersons(pseudonyms: [], keyFingerprint: nil)

    private func refused(
        at generation: Int64, load: () async throws -> RefusedPersons
    ) async throws -> RefusedPersons {
        if let cached = cached(generation) { return cached }
        return install(generation == 0 ? Self.empty : try await load(), generation)
    }

    /// The refused set cached for `generation`, if that is the one cached.
    private func cached(_ generation: Int64) -> RefusedPersons? {
        state.withLock { $0?.generation == generation ? $0?.refused : nil }
    }

    /// Caches `refused` as the ledger at `generation` (its verdicts start empty) and returns it.
    private func install(_ refused: RefusedPersons, _ generation: Int64) -> RefusedPersons {
        state.withLock { $0 = State(generation: generation, refused: refused) }
        return refused
    }

    /// The mask by `refused`, the ledger at `generation`: the cached verdicts serve only when they are of that
    /// generation (a caller that read another one, e.g. concurrently, computes its own).
    private func mask(
        count: Int, _ generation: Int64, _ refused: RefusedPersons, patient: (Int) -> String
    ) throws -> [Bool]? {
        guard !refused.pseudonyms.isEmpty else { return nil }
        let key = try Self.checked(key, against: refused.keyFingerprint)
        return state.withLock { state -> [Bool]? in
            var verdicts: [String: Bool] = [:]
            let shared = state?.generation == generation
            if shared, var current = state {
                verdicts = current.verdicts  // moved out, edited, moved back: no copy of the dictionary
                current.verdicts = [:]
                state = current
            }
            defer {
                if shared, var current = state {
                    current.verdicts = verdicts.count > Self.verdictLimit ? [:] : verdicts
                    state = current
                }
            }
            var any = false
            let mask = (0..<count).map { index in
                let patient = patient(index)
                if let known = verdicts[patient] {
                    any = any || known
                    return known
                }
                let verdict = refused.pseudonyms.contains(key.pseudonym(of: patient))
                verdicts[patient] = verdict
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
