/// One entry of a store's erasure ledger (`storectl erasures`): the audit record of a request, written before
/// anything was deleted, then completed with what was deleted. It holds no patient id, only the person's
/// ``PatientPseudonym``.
public struct ErasureLedgerEntry: Sendable, Hashable {
    /// The entry's number in its store, in the order entries were written.
    public var sequence: Int64
    public var pseudonym: PatientPseudonym
    public var mode: ErasureMode
    /// The operator's text (a ticket or request number; never the patient id: `storectl erase` refuses that).
    public var reference: String
    /// When the entry was written (RFC 3339 UTC); from then on no batch writes the person.
    public var requestedAt: String
    /// When every deletion it asks for was done; nil while some remains (`storectl erase` again finishes it).
    public var completedAt: String?
    /// Rows deleted by this entry: Observations, retraction-ledger days and audit-log rows.
    public var deleted: ErasureCounts

    public init(
        sequence: Int64, pseudonym: PatientPseudonym, mode: ErasureMode, reference: String, requestedAt: String,
        completedAt: String?, deleted: ErasureCounts
    ) {
        self.sequence = sequence
        self.pseudonym = pseudonym
        self.mode = mode
        self.reference = reference
        self.requestedAt = requestedAt
        self.completedAt = completedAt
        self.deleted = deleted
    }
}

/// What an erasure deleted (or, in a dry run, would delete).
public struct ErasureCounts: Sendable, Hashable {
    /// Stored Observations (rows, or resources on a FHIR server).
    public var observations: Int64
    /// Days in the retraction ledger.
    public var retractions: Int64
    /// Rows of the version audit log (`storectl audit-install`).
    public var auditRows: Int64

    public init(observations: Int64 = 0, retractions: Int64 = 0, auditRows: Int64 = 0) {
        self.observations = observations
        self.retractions = retractions
        self.auditRows = auditRows
    }

    public static func + (lhs: Self, rhs: Self) -> Self {
        Self(
            observations: lhs.observations + rhs.observations, retractions: lhs.retractions + rhs.retractions,
            auditRows: lhs.auditRows + rhs.auditRows)
    }
}
