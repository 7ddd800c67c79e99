/// FHIR `Observation.status` as the lifecycle uses it (docs/LIFECYCLE.md).
public enum ObservationStatus: String, Sendable, Hashable, CaseIterable, Codable {
    /// The local day is still open; later versions may change the value.
    case preliminary
    /// The day is complete.
    case final
    /// A higher version replaced a final (or amended) value with a different value.
    case amended
    /// A retraction withdrew the day (the resource stays, with this status).
    case enteredInError = "entered-in-error"
}
