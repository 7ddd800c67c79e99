import Synchronization

/// A store's erasure ledger as the callers outside its batches check it (`dlq redrive`, the ingest gateway): who is
/// refused, by the pseudonyms of the patient ids under the workers' key.
///
/// ``refresh()`` reads the ledger's generation (one small read) and, only when it changed, the refused set;
/// ``refusedMask(_:)`` then answers from memory (no database round trip), through the same ``ErasureGuard`` the
/// stores' batches use: each id is hashed once per generation, and a ledger with entries checked with no key or
/// another key's is refused, never silently missed.
public final class ErasureLedgerReader: Sendable {
    private struct Loaded: Sendable {
        var generation: Int64
        var refused: RefusedPersons
        /// Set when the ledger has entries and the key is missing or another one: every check fails (closed).
        var keyProblem: StoreError?
    }

    private let store: any ObservationStore
    private let ledger: any ObservationErasing
    private let verdicts: ErasureGuard
    private let loaded = Mutex<Loaded?>(nil)

    /// A reader of `store`'s ledger, hashing ids with `key` (nil: no key was given; fine while the ledger is empty).
    /// - Throws: ``StoreError`` (`usage`) when the store keeps no erasure ledger.
    public init(store: any ObservationStore, key: ErasureKey?) throws {
        guard let ledger = store.capabilities.erasure else {
            throw StoreError(.usage, "the store keeps no erasure ledger (SQLite and PostgreSQL stores do)")
        }
        self.store = store
        self.ledger = ledger
        verdicts = ErasureGuard(key: key)
    }

    /// Reads the ledger's generation, and the refused persons when it changed since the last refresh.
    /// - Returns: how many persons are refused now.
    /// - Throws: ``StoreError`` when the store cannot be read (the previous refresh stays in use); `usage` when the
    ///   ledger has entries and the key is missing or another one.
    @discardableResult
    public func refresh() async throws -> Int {
        let generation = try await ledger.ledgerGeneration()
        if let current = loaded.withLock({ $0 }), current.generation == generation {
            return current.refused.pseudonyms.count
        }
        let refused =
            generation == 0
            ? RefusedPersons(pseudonyms: [], keyFingerprint: nil)  // never had an entry: nothing to read
            : try await ledger.refusedPseudonyms()
        var keyProblem: StoreError?
        if !refused.pseudonyms.isEmpty {
            do {
                _ = try ErasureGuard.checked(verdicts.erasureKey, against: refused.keyFingerprint)
            } catch let error as StoreError {
                keyProblem = error
            }
        }
        // Kept even with a key problem: the checks then fail instead of answering from an older ledger.
        loaded.withLock { $0 = Loaded(generation: generation, refused: refused, keyProblem: keyProblem) }
        if let keyProblem { throw keyProblem }
        return refused.pseudonyms.count
    }

    /// Whether the ledger was read at least once.
    public var hasLoaded: Bool { loaded.withLock { $0 != nil } }

    /// For each of `patients`, whether the person is refused (erased, or withdrawn and not lifted) by the ledger as
    /// last refreshed; nil when none of them is. No database round trip.
    /// - Throws: ``StoreError``: `connection` before the first refresh succeeded; `usage` when the ledger has
    ///   entries and the key is missing or another one.
    public func refusedMask(_ patients: [String]) throws -> [Bool]? {
        guard let current = loaded.withLock({ $0 }) else {
            throw StoreError(.connection, "the erasure ledger was not read yet")
        }
        if let problem = current.keyProblem { throw problem }
        return try verdicts.refusedMask(patients, generation: current.generation, loaded: current.refused)
    }

    /// ``refresh()``, then ``refusedMask(_:)``: the ledger as it is now (one or two small reads).
    public func currentMask(_ patients: [String]) async throws -> [Bool]? {
        try await refresh()
        return try refusedMask(patients)
    }

    /// Closes the store.
    public func close() async { await store.close() }
}
