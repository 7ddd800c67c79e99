/// What one credential may send: records of one tenant whose patient ids start with a given prefix.
public struct IngestScope: Sendable, Hashable {
    /// The tenant the credential belongs to (logged and counted; never part of an event).
    public var tenant: String
    /// Every record's `patient` must start with this; empty allows every patient (an operator's choice).
    public var patientPrefix: String

    public init(tenant: String, patientPrefix: String) {
        self.tenant = tenant
        self.patientPrefix = patientPrefix
    }

    /// Whether a record of `patient` is inside the scope.
    public func allows(patient: String) -> Bool { patient.hasPrefix(patientPrefix) }
}
