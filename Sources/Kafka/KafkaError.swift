/// A failure reported by librdkafka or by this wrapper, with its typed ``Code`` (librdkafka's native
/// `rd_kafka_resp_err_t`, converted inside `RDKafka/` only).
///
/// Most errors librdkafka reports while running (`_TRANSPORT`, `_ALL_BROKERS_DOWN`, coordinator changes) are
/// informational: the client recovers by itself. Only ``isFatal`` errors require recreating the client.
/// Callers switch over ``code`` (or ``kind``), never over the text.
public struct KafkaError: Error, Sendable, Hashable, CustomStringConvertible {
    // MARK: - Kind

    /// A coarse classification for callers that do not care about the exact code.
    public enum Kind: String, Sendable, Hashable {
        /// A configuration property was unknown or had an invalid value (see ``KafkaError/property``).
        case configuration
        /// Network or broker connectivity (`_TRANSPORT`, `_ALL_BROKERS_DOWN`, `_RESOLVE`…).
        case transport
        /// A local operation did not finish in time (`_TIMED_OUT`), e.g. a close watchdog tripped.
        case timedOut
        /// A produced message was not acknowledged within `message.timeout.ms` (`_MSG_TIMED_OUT`).
        case messageTimedOut
        /// The call is not valid in the client's current state (`_STATE`, closed client, unassigned partition).
        case state
        /// The client's guarantees are broken; it must be recreated (`_FATAL`).
        case fatal
        /// Any other local or broker error.
        case other
    }

    // MARK: - Properties

    /// The librdkafka error code.
    public var code: Code
    /// librdkafka's message (the error string it reported), or the wrapper's explanation.
    public var message: String
    /// The coarse classification of ``code``.
    public var kind: Kind
    /// True when the client instance is unusable and must be recreated.
    public var isFatal: Bool
    /// True when retrying the same operation may succeed.
    public var isRetriable: Bool
    /// The configuration property at fault, for ``Kind/configuration`` errors.
    public var property: String?
    /// For failed deliveries: whether the message may still have been written (`rd_kafka_message_status`).
    public var persistenceStatus: KafkaPersistenceStatus?

    /// An error with `code`; `message` defaults to librdkafka's text for it, `kind` and `isRetriable` to the
    /// code's classification (``Code/isRetriable``).
    public init(
        code: Code,
        message: String? = nil,
        kind: Kind? = nil,
        isFatal: Bool = false,
        isRetriable: Bool? = nil,
        property: String? = nil,
        persistenceStatus: KafkaPersistenceStatus? = nil
    ) {
        self.code = code
        self.message = message ?? code.text
        self.kind = kind ?? code.kind(isFatal: isFatal)
        self.isFatal = isFatal || code == .fatal
        self.isRetriable = isRetriable ?? code.isRetriable
        self.property = property
        self.persistenceStatus = persistenceStatus
    }

    // MARK: - Convenience constructors

    /// A configuration error naming the property and the rule it broke.
    public static func configuration(property: String, _ message: String) -> KafkaError {
        KafkaError(
            code: .invalidArgument, message: message, kind: .configuration, isRetriable: false,
            property: property)
    }

    /// A state error: the operation is not possible now (closed client, unassigned partition…).
    public static func state(_ message: String) -> KafkaError {
        KafkaError(code: .state, message: message, kind: .state, isRetriable: false)
    }

    /// A local timeout, e.g. a close watchdog that tripped.
    public static func timedOut(_ message: String) -> KafkaError {
        KafkaError(code: .timedOut, message: message, kind: .timedOut)
    }

    public var description: String {
        var text = "Kafka \(kind.rawValue) error \(code)"
        if let property { text += " [property \(property)]" }
        text += ": \(message)"
        if let persistenceStatus { text += " (message \(persistenceStatus.rawValue))" }
        if isFatal { text += " [fatal]" }
        return text
    }
}
