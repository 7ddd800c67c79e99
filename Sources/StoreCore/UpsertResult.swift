/// What ``ObservationStore/upsert(_:)`` did with one record: a decided ``UpsertOutcome``, or a refusal of the record
/// for its content, as a value (never a thrown error).
///
/// `refused` comes only from a store behind a server that validates resources (a FHIR server's 400 or 422); SQL
/// stores decide every record. A refused record must be dead-lettered with its reason, not retried: a retry would be
/// refused again. When the batch's winner of an identity is refused, the identity's other records in the batch are
/// refused with it (same reason): they were never sent.
public enum UpsertResult: Sendable, Hashable, CustomStringConvertible {
    /// No Observation existed for the identity; it was stored.
    case inserted
    /// A greater version replaced the stored one.
    case updated
    /// The version equals the stored one and so does the clinical value: nothing was rewritten.
    case unchanged
    /// A lower version than the stored one: ignored.
    case stale
    /// A winning retraction (``UpsertOutcome/retracted``).
    case retracted
    /// The version equals the stored one but the clinical value differs: nothing was rewritten.
    case conflict
    /// The day is before the store's retention horizon: nothing was written.
    case expired
    /// The person is erased or has withdrawn consent: nothing was written.
    case erased
    /// The store's server refused the record; `reason` is its text (it can name the patient: keep it out of logs).
    case refused(reason: String)

    /// The result of a decided record.
    public init(_ outcome: UpsertOutcome) {
        switch outcome {
        case .inserted: self = .inserted
        case .updated: self = .updated
        case .unchanged: self = .unchanged
        case .stale: self = .stale
        case .retracted: self = .retracted
        case .conflict: self = .conflict
        case .expired: self = .expired
        case .erased: self = .erased
        }
    }

    /// The outcome counted for a decided record; nil for a refused one.
    public var outcome: UpsertOutcome? {
        switch self {
        case .inserted: .inserted
        case .updated: .updated
        case .unchanged: .unchanged
        case .stale: .stale
        case .retracted: .retracted
        case .conflict: .conflict
        case .expired: .expired
        case .erased: .erased
        case .refused: nil
        }
    }

    /// The server's reason for a refused record; nil for a decided one.
    public var refusalReason: String? {
        if case .refused(let reason) = self { reason } else { nil }
    }

    public var description: String {
        switch self {
        case .refused: "refused"
        default: outcome!.rawValue
        }
    }
}
