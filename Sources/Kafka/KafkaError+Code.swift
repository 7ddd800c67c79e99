extension KafkaError {
    /// A librdkafka error code (`rd_kafka_resp_err_t`, same raw values): negative values are local (`_` prefixed
    /// names), positive values come from the broker. The codes the wrapper and the worker act on are named here;
    /// any other code still round-trips through ``rawValue`` with its librdkafka ``name``.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: Int32
        /// Creates the value from its fields.
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// The librdkafka name of the code, e.g. `_MSG_TIMED_OUT` or `NOT_LEADER_FOR_PARTITION` (for logs; never
        /// compare it: compare codes).
        public var name: String { RDKafkaErrorNames.name(of: rawValue) }
        /// librdkafka's human readable text for the code.
        public var text: String { RDKafkaErrorNames.text(of: rawValue) }
        public var description: String { "\(name) (\(rawValue))" }

        // MARK: - Local codes (negative)

        /// `NO_ERROR`.
        public static let noError = Code(rawValue: 0)
        /// `_DESTROY`: the client is being destroyed.
        public static let destroy = Code(rawValue: -197)
        /// `_TRANSPORT`: broker connection failed.
        public static let transport = Code(rawValue: -195)
        /// `_RESOLVE`: host name resolution failed.
        public static let resolve = Code(rawValue: -193)
        /// `_MSG_TIMED_OUT`: not acknowledged within `message.timeout.ms`.
        public static let messageTimedOut = Code(rawValue: -192)
        /// `_PARTITION_EOF`: reached the end of a partition.
        public static let partitionEOF = Code(rawValue: -191)
        /// `_ALL_BROKERS_DOWN`: no broker reachable.
        public static let allBrokersDown = Code(rawValue: -187)
        /// `_INVALID_ARG`.
        public static let invalidArgument = Code(rawValue: -186)
        /// `_TIMED_OUT`: a local operation timed out.
        public static let timedOut = Code(rawValue: -185)
        /// `_QUEUE_FULL`: the producer queue is full.
        public static let queueFull = Code(rawValue: -184)
        /// `_SSL`.
        public static let ssl = Code(rawValue: -181)
        /// `_WAIT_COORD`: the group coordinator is not known yet.
        public static let waitingForCoordinator = Code(rawValue: -180)
        /// `_STATE`: not possible in the current state.
        public static let state = Code(rawValue: -172)
        /// `_AUTHENTICATION`.
        public static let authentication = Code(rawValue: -169)
        /// `_NO_OFFSET`: nothing to commit.
        public static let noOffset = Code(rawValue: -168)
        /// `_FATAL`: the client must be recreated.
        public static let fatal = Code(rawValue: -150)
        /// `_MAX_POLL_EXCEEDED`: `max.poll.interval.ms` passed without a poll.
        public static let maxPollExceeded = Code(rawValue: -147)
        /// `_AUTO_OFFSET_RESET`: `auto.offset.reset=error` tripped.
        public static let autoOffsetReset = Code(rawValue: -140)

        // MARK: - Broker codes (positive)

        /// `UNKNOWN_TOPIC_OR_PART`.
        public static let unknownTopicOrPartition = Code(rawValue: 3)
        /// `LEADER_NOT_AVAILABLE`.
        public static let leaderNotAvailable = Code(rawValue: 5)
        /// `NOT_LEADER_FOR_PARTITION`.
        public static let notLeaderForPartition = Code(rawValue: 6)
        /// `MSG_SIZE_TOO_LARGE`: the record is larger than the producer's `message.max.bytes` (refused locally)
        /// or the topic's `max.message.bytes` (refused by the broker).
        public static let messageSizeTooLarge = Code(rawValue: 10)
        /// `REQUEST_TIMED_OUT`.
        public static let requestTimedOut = Code(rawValue: 7)
        /// `BROKER_NOT_AVAILABLE`.
        public static let brokerNotAvailable = Code(rawValue: 8)
        /// `COORDINATOR_NOT_AVAILABLE`.
        public static let coordinatorNotAvailable = Code(rawValue: 15)
        /// `NOT_COORDINATOR`.
        public static let notCoordinator = Code(rawValue: 16)
        /// `RECORD_LIST_TOO_LARGE`: the broker refused a batch as too large.
        public static let recordListTooLarge = Code(rawValue: 18)
        /// `CORRUPT_MESSAGE`: the broker found the record corrupt.
        public static let corruptMessage = Code(rawValue: 2)
        /// `INVALID_TIMESTAMP`: the record's timestamp is outside the topic's accepted range.
        public static let invalidTimestamp = Code(rawValue: 32)
        /// `INVALID_RECORD`: the broker refused the record itself (e.g. no key for a compacted topic).
        public static let invalidRecord = Code(rawValue: 87)
        /// `NOT_ENOUGH_REPLICAS`.
        public static let notEnoughReplicas = Code(rawValue: 19)
        /// `ILLEGAL_GENERATION`: the group moved on to a new generation.
        public static let illegalGeneration = Code(rawValue: 22)
        /// `UNKNOWN_MEMBER_ID`: the group no longer knows this member.
        public static let unknownMemberID = Code(rawValue: 25)
        /// `REBALANCE_IN_PROGRESS`.
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

        /// True when the record itself is too large for the producer or the topic: sending it again as it is
        /// fails again (a smaller record may pass).
        public var isRecordTooLarge: Bool { self == .messageSizeTooLarge || self == .recordListTooLarge }

        /// True when the producer or the broker refuses the record itself — too large, corrupt, a timestamp out of
        /// the topic's range, no key for a compacted topic: sent again as it is, it fails again.
        public var isRecordRefused: Bool {
            isRecordTooLarge || self == .corruptMessage || self == .invalidTimestamp || self == .invalidRecord
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
