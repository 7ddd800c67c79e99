import CKafka

/// A failure reported by librdkafka or by this wrapper, with the native `rd_kafka_resp_err_t` code.
///
/// Most errors librdkafka reports while running (`_TRANSPORT`, `_ALL_BROKERS_DOWN`, coordinator changes) are
/// informational: the client recovers by itself. Only ``isFatal`` errors require recreating the client.
public struct KafkaError: Error, Sendable, Hashable, CustomStringConvertible {
    // MARK: - Code

    /// A librdkafka error code (`rd_kafka_resp_err_t`): negative values are local (`_` prefixed names),
    /// positive values come from the broker.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        init(_ err: rd_kafka_resp_err_t) { self.rawValue = err.rawValue }

        /// The librdkafka name of the code, e.g. `_MSG_TIMED_OUT` or `NOT_LEADER_FOR_PARTITION`.
        public var name: String { String(cString: rd_kafka_err2name(native)) }
        /// librdkafka's human readable text for the code.
        public var text: String { String(cString: rd_kafka_err2str(native)) }
        var native: rd_kafka_resp_err_t { rd_kafka_resp_err_t(rawValue: rawValue) }
        public var description: String { "\(name) (\(rawValue))" }

        public static let noError = Code(RD_KAFKA_RESP_ERR_NO_ERROR)
        public static let invalidArgument = Code(RD_KAFKA_RESP_ERR__INVALID_ARG)
        public static let transport = Code(RD_KAFKA_RESP_ERR__TRANSPORT)
        public static let allBrokersDown = Code(RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN)
        public static let timedOut = Code(RD_KAFKA_RESP_ERR__TIMED_OUT)
        public static let messageTimedOut = Code(RD_KAFKA_RESP_ERR__MSG_TIMED_OUT)
        public static let queueFull = Code(RD_KAFKA_RESP_ERR__QUEUE_FULL)
        public static let state = Code(RD_KAFKA_RESP_ERR__STATE)
        public static let noOffset = Code(RD_KAFKA_RESP_ERR__NO_OFFSET)
        public static let partitionEOF = Code(RD_KAFKA_RESP_ERR__PARTITION_EOF)
        public static let fatal = Code(RD_KAFKA_RESP_ERR__FATAL)
        public static let destroy = Code(RD_KAFKA_RESP_ERR__DESTROY)
        public static let unknownTopicOrPartition = Code(RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART)
        public static let maxPollExceeded = Code(RD_KAFKA_RESP_ERR__MAX_POLL_EXCEEDED)
        public static let autoOffsetReset = Code(RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET)
        public static let illegalGeneration = Code(RD_KAFKA_RESP_ERR_ILLEGAL_GENERATION)
        public static let unknownMemberID = Code(RD_KAFKA_RESP_ERR_UNKNOWN_MEMBER_ID)
        public static let waitingForCoordinator = Code(RD_KAFKA_RESP_ERR__WAIT_COORD)
    }

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

    public var code: Code
    /// librdkafka's message (the error string it reported), or the wrapper's explanation.
    public var message: String
    public var kind: Kind
    /// True when the client instance is unusable and must be recreated.
    public var isFatal: Bool
    /// True when retrying the same operation may succeed.
    public var isRetriable: Bool
    /// The configuration property at fault, for ``Kind/configuration`` errors.
    public var property: String?
    /// For failed deliveries: whether the message may still have been written (`rd_kafka_message_status`).
    public var persistenceStatus: KafkaPersistenceStatus?

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
        self.kind = kind ?? Self.kind(of: code, isFatal: isFatal)
        self.isFatal = isFatal || code == .fatal
        self.isRetriable = isRetriable ?? Self.defaultRetriable(code)
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

    /// Wraps a native code, reading retriable/fatal flags from librdkafka's `rd_kafka_error_t` when given.
    init(_ err: rd_kafka_resp_err_t, _ message: String? = nil) {
        self.init(code: Code(err), message: message)
    }

    /// Consumes (destroys) an `rd_kafka_error_t`.
    init(consuming error: OpaquePointer) {
        defer { rd_kafka_error_destroy(error) }
        self.init(
            code: Code(rd_kafka_error_code(error)),
            message: String(cString: rd_kafka_error_string(error)),
            isFatal: rd_kafka_error_is_fatal(error) != 0,
            isRetriable: rd_kafka_error_is_retriable(error) != 0
        )
    }

    public var description: String {
        var text = "Kafka \(kind.rawValue) error \(code)"
        if let property { text += " [property \(property)]" }
        text += ": \(message)"
        if let persistenceStatus { text += " (message \(persistenceStatus.rawValue))" }
        if isFatal { text += " [fatal]" }
        return text
    }

    // MARK: - Classification

    private static func kind(of code: Code, isFatal: Bool) -> Kind {
        if isFatal || code == .fatal { return .fatal }
        switch code {
        case .transport, .allBrokersDown, Code(RD_KAFKA_RESP_ERR__RESOLVE), Code(RD_KAFKA_RESP_ERR__SSL),
            Code(RD_KAFKA_RESP_ERR__AUTHENTICATION):
            return .transport
        case .timedOut: return .timedOut
        case .messageTimedOut: return .messageTimedOut
        case .state, .destroy: return .state
        default: return .other
        }
    }

    private static func defaultRetriable(_ code: Code) -> Bool {
        switch code {
        case .transport, .allBrokersDown, .timedOut, .messageTimedOut, .queueFull,
            Code(RD_KAFKA_RESP_ERR__RESOLVE), Code(RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION),
            Code(RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE), Code(RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT),
            Code(RD_KAFKA_RESP_ERR_NOT_COORDINATOR), Code(RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE),
            Code(RD_KAFKA_RESP_ERR_REBALANCE_IN_PROGRESS), Code(RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS),
            Code(RD_KAFKA_RESP_ERR_BROKER_NOT_AVAILABLE):
            return true
        default:
            return false
        }
    }
}
