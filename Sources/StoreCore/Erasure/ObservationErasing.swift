/// Erasure and consent withdrawal of whole persons (`storectl erase`, docs/PRIVACY.md).
///
/// Every store keeps an erasure ledger keyed by ``PatientPseudonym``. A ledger entry is written, under the lock every
/// batch holds while it writes, before anything is deleted: from then on every event of the person is
/// ``UpsertOutcome/erased`` (never stored), and no batch in flight can write after the entry. Then an `erase` deletes
/// everything stored of the person; a crash in between leaves the entry incomplete and a rerun finishes it.
public protocol ObservationErasing: Sendable {
    /// Writes a ledger entry for each subject (unless one in force already says as much) and, for `erase`, deletes
    /// everything stored of them. With `dryRun` nothing changes and the report counts what would be deleted.
    /// - Throws: ``StoreError``: `usage` when the store's ledger was written under another key, or for a `lift` of
    ///   an erased person.
    func erase(_ request: ErasureRequest) async throws -> ErasureReport

    /// The ledger, in the order its entries were written.
    func erasureLedger() async throws -> [ErasureLedgerEntry]

    /// The persons whose events are refused now (erased, or withdrawn and not lifted): for the callers that read the
    /// ledger outside a batch (dead letters, `dlq redrive`, the ingest gateway).
    func refusedPseudonyms() async throws -> RefusedPersons

    /// A number that changes whenever the ledger does (cheap: one small read), so that a caller reloads
    /// ``refusedPseudonyms()`` only then; 0 for a ledger that never had an entry (its callers then read nothing
    /// more).
    func ledgerGeneration() async throws -> Int64
}

/// The persons a ledger refuses, with the key they are hashed under.
public struct RefusedPersons: Sendable {
    /// Erased, or withdrawn and not lifted.
    public var pseudonyms: Set<PatientPseudonym>
    /// The fingerprint of the key the ledger was written under (nil for an empty ledger).
    public var keyFingerprint: String?

    public init(pseudonyms: Set<PatientPseudonym>, keyFingerprint: String?) {
        self.pseudonyms = pseudonyms
        self.keyFingerprint = keyFingerprint
    }
}

/// A request to a store's ``ObservationErasing/erase(_:)``.
public struct ErasureRequest: Sendable {
    /// Whom the request is about: a patient id (`--patient`), or a pseudonym only (`--reapply-ledger`, after a backup
    /// was restored: the store finds the person's rows by hashing the ids it holds).
    public enum Subject: Sendable, Hashable {
        case patient(String)
        case pseudonym(PatientPseudonym)

        /// The subject's pseudonym under `key`.
        public func pseudonym(with key: ErasureKey) -> PatientPseudonym {
            switch self {
            case .patient(let patient): key.pseudonym(of: patient)
            case .pseudonym(let pseudonym): pseudonym
            }
        }
    }

    public var subjects: [Subject]
    public var mode: ErasureMode
    public var reference: String
    public var dryRun: Bool
    /// The key the pseudonyms are made with; it must be the one the store's workers use.
    public var key: ErasureKey

    public init(subjects: [Subject], mode: ErasureMode, reference: String, dryRun: Bool = false, key: ErasureKey) {
        self.subjects = subjects
        self.mode = mode
        self.reference = reference
        self.dryRun = dryRun
        self.key = key
    }
}

/// What ``ObservationErasing/erase(_:)`` did for each subject.
public struct ErasureReport: Sendable {
    public struct Subject: Sendable {
        public var pseudonym: PatientPseudonym
        /// A new ledger entry was written (false: one in force already said as much, or a dry run).
        public var recorded: Bool
        /// Deleted now (or, in a dry run, to delete).
        public var deleted: ErasureCounts
        /// What is still stored of the person, said for the operator (empty: complete). A rerun finishes it.
        public var remaining: [String]

        public init(pseudonym: PatientPseudonym, recorded: Bool, deleted: ErasureCounts, remaining: [String] = []) {
            self.pseudonym = pseudonym
            self.recorded = recorded
            self.deleted = deleted
            self.remaining = remaining
        }
    }

    public var subjects: [Subject]
    /// What remains for the store as a whole (e.g. an SQLite WAL a reader kept from being truncated).
    public var remaining: [String]

    public init(subjects: [Subject], remaining: [String] = []) {
        self.subjects = subjects
        self.remaining = remaining
    }

    /// True when nothing the request asked to delete remains.
    public var isComplete: Bool { remaining.isEmpty && subjects.allSatisfy(\.remaining.isEmpty) }
}
