import StoreCore

/// Why the worker is (not) ready, as `/readyz` answers it: a short fixed word, never an error's text (a server's
/// message may name a patient or echo a value; the logs carry the details).
enum ReadinessCategory: String, Sendable, CaseIterable {
    case ready
    case starting
    case stopping
    /// The store cannot be reached or failed (connection, timeout, a 5xx answer, a broken schema).
    case storeUnavailable = "store-unavailable"
    /// The store is busy: throttled (429/503), locked, or losing serialization conflicts.
    case storeThrottled = "store-throttled"
    /// The store refused the credentials (401/403).
    case storeUnauthorized = "store-unauthorized"
    /// Records cannot be written to the dead-letter topic.
    case deadLetterUnavailable = "dead-letter-unavailable"
    /// No broker is reachable.
    case brokerUnavailable = "broker-unavailable"

    /// The category of a failed store call.
    init(storeFailure error: any Error) {
        switch (error as? StoreError)?.code {
        case .busy: self = .storeThrottled
        case .unauthorized: self = .storeUnauthorized
        default: self = .storeUnavailable
        }
    }
}
