/// The identity of one daily Observation: one person, one metric, one local calendar day.
///
/// There is exactly one stored Observation per identity; every upsert is keyed by it.
public struct ObservationIdentity: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The patient id as sent in the event (a FHIR id: 1–64 chars of `[A-Za-z0-9.-]`, at least one letter or digit).
    public var patient: String
    /// The metric catalog key, e.g. `heart_rate`.
    public var metric: String
    /// The person's local calendar day, `YYYY-MM-DD`.
    public var day: String

    public init(patient: String, metric: String, day: String) {
        self.patient = patient
        self.metric = metric
        self.day = day
    }

    /// `{patient}/{metric}/{day}`: the FHIR `identifier.value` and the natural key of the stores.
    public var key: String { "\(patient)/\(metric)/\(day)" }

    public var description: String { key }

    public static func < (lhs: ObservationIdentity, rhs: ObservationIdentity) -> Bool {
        (lhs.patient, lhs.metric, lhs.day) < (rhs.patient, rhs.metric, rhs.day)
    }
}
