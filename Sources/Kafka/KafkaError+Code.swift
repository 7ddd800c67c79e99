extension KafkaError {
    /// A librdkafka error code (`rd_kafka_resp_err_t`, same raw values): negative values are local (`_` prefixed
    /// names), positive values come from the broker. The codes the wrapper and the worker act on are named here;
    /// any other code still round-trips through ``rawValue`` with its librdkafka ``name``.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// The librdkafka name of the code, e.g. `_MSG_TIMED_OUT` or `NOT_LEADER_FOR_PARTITION` (for logs; never
        /// compare it: compare codes).
        public var name: String { RDKafkaErrorNames.name(of: rawValue) }
        /// librdkafka's human readable text for the code.
        public var text: String { RDKafkaErrorNames.text(of: rawValue) }
        public var description: String { "\(name) (\(rawValue))" }

        // MARK: - Local codes (negative)

        public static let noError = Code(rawValue: 0)
        public static let destroy = Code(rawValue: -197)
        public static let transport = Code(rawValue: -195)
        public static let resolve = Code(rawValue: -193)
        public static let messageTimedOut = Code(rawValue: -192)
        public static let partitionEOF = Code(rawValue: -191)
        public static let allBrokersDown = Code(rawValue: -187)
        public static let invalidArgument = Code(rawValue: -186)
        public static let timedOut = Code(rawValue: -185)
        public static let queueFull = Code(rawValue: -184)
        public static let ssl = Code(rawValue: -181)
        /// `_WAIT_COORD`: the group coordinator is not known yet.
        public static let waitingForCoordinator = Code(rawValue: -180)
        public static let state = Code(rawValue: -172)
        public static let authentication = Code(rawValue: -169)
        public static let noOffset = Code(rawValue: -168)
        public static let fatal = Code(rawValue: -150)
        public static let maxPollExceeded = Code(rawValue: -147)
        public static let autoOffsetReset = Code(rawValue: -140)

        // MARK: - Broker codes (positive)

        public static let unknownTopicOrPartition = Code(rawValue: 3)
        public static let leaderNotAvailable = Code(rawValue: 5)
        public static let notLeaderForPartition = Code(rawValue: 6)
        public static let requestTimedOut = Code(rawValue: 7)
        public static let brokerNotAvailable = Code(rawValue: 8)
        public static let coordinatorNotAvailable = Code(rawValue: 15)
        public static let notCoordinator = Code(rawValue: 16)
        public static let notEnoughReplicas = Code(rawValue: 19)
        public static let illegalGeneration = Code(rawValue: 22)
        public static let unknownMemberID = Code(rawValue: 25)
        public static let rebalanceInProgress = Code(rawValue: 27)

        // MARK: - Classification

        /// True when retrying the same operation may succeed (connectivity, timeouts, leadership and coordinator
        /// moves, a rebalance in progress). librdkafka's own verdict (`rd_kafka_error_is_retriable`) overrides it
        /// where librdkafka gives one.
        public var isRetriable: Bool {
            switch self {
            case .transport, .allBrokersDown, .timedOut, .messageTimedOut, .queueFull, .resolve,
                .notLeaderForPartition, .leaderNotAvailable, .requestTimedOut, .notCoordinator,
                .coordinatorNotAvailable, .rebalanceInProgress, .notEnoughReplicas, .brokerNotAvailable:
                true
            default:
                false
            }
        }

        /// True for `_FATAL`: the client must be recreated.
        public var isFatal: Bool { self == .fatal }

        /// The coarse kind of an error with this code.
        func kind(isFatal: Bool) -> Kind {
            if isFatal || self.isFatal { return .fatal }
            switch self {
            case .transport, .allBrokersDown, .resolve, .ssl, .authentication: return .transport
            case .timedOut: return .timedOut
            case .messageTimedOut: return .messageTimedOut
            case .state, .destroy: return .state
            default: return .other
            }
        }
    }
}
