/// Why a ``ServiceGroup`` ended without its services' own error (``ServiceGroupConfiguration/Escalation/cancel``).
public enum ServiceGroupError: Error, Sendable, Equatable {
    /// The stop deadline passed (or a second signal came) before every service ended; their tasks were cancelled.
    case deadlineExceeded
}
