import DailyValueContract

/// Thrown by ``ObservationStore/upsert(_:)`` when the store's server refused some records for their content (a FHIR
/// server's 400 or 422): every other record of the batch was decided and is durable, with its outcome in
/// ``outcomes``. The refused records must be dead-lettered with their reason, not retried: a retry would be refused
/// again. When the batch's winner of an identity is refused, the identity's other records in the batch are refused
/// with it (same reason): they were never sent. Only stores behind a server that validates resources throw it (the
/// FHIR store); SQL stores never do.
public struct UpsertRejections: Error, Sendable, CustomStringConvertible {
    /// One outcome per batch record, in input order; nil for a refused record.
    public var outcomes: [UpsertOutcome?]
    /// The server's reason (its OperationOutcome's text), by batch index of each refused record.
    public var reasons: [Int: String]

    public init(outcomes: [UpsertOutcome?], reasons: [Int: String]) {
        self.outcomes = outcomes
        self.reasons = reasons
    }

    public var description: String {
        let first = reasons.min { $0.key < $1.key }.map { "record \($0.key): \($0.value)" } ?? ""
        return "the store refused \(reasons.count) of \(outcomes.count) records (\(first))"
    }
}
