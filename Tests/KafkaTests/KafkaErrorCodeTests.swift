import Kafka
import Testing

/// The named codes carry librdkafka's raw values (checked against librdkafka's own names), and their
/// classification is the one callers switch on.
@Suite("KafkaError codes")
struct KafkaErrorCodeTests {
    @Test(
        "every named code has librdkafka's raw value",
        arguments: [
            (KafkaError.Code.noError, "NO_ERROR"), (.destroy, "_DESTROY"), (.transport, "_TRANSPORT"),
            (.resolve, "_RESOLVE"), (.messageTimedOut, "_MSG_TIMED_OUT"), (.partitionEOF, "_PARTITION_EOF"),
            (.allBrokersDown, "_ALL_BROKERS_DOWN"), (.invalidArgument, "_INVALID_ARG"), (.timedOut, "_TIMED_OUT"),
            (.queueFull, "_QUEUE_FULL"), (.ssl, "_SSL"), (.waitingForCoordinator, "_WAIT_COORD"), (.state, "_STATE"),
            (.authentication, "_AUTHENTICATION"), (.noOffset, "_NO_OFFSET"), (.fatal, "_FATAL"),
            (.maxPollExceeded, "_MAX_POLL_EXCEEDED"), (.autoOffsetReset, "_AUTO_OFFSET_RESET"),
            (.unknownTopicOrPartition, "UNKNOWN_TOPIC_OR_PART"), (.leaderNotAvailable, "LEADER_NOT_AVAILABLE"),
            (.notLeaderForPartition, "NOT_LEADER_FOR_PARTITION"), (.requestTimedOut, "REQUEST_TIMED_OUT"),
            (.brokerNotAvailable, "BROKER_NOT_AVAILABLE"), (.coordinatorNotAvailable, "COORDINATOR_NOT_AVAILABLE"),
            (.notCoordinator, "NOT_COORDINATOR"), (.notEnoughReplicas, "NOT_ENOUGH_REPLICAS"),
            (.illegalGeneration, "ILLEGAL_GENERATION"), (.unknownMemberID, "UNKNOWN_MEMBER_ID"),
            (.rebalanceInProgress, "REBALANCE_IN_PROGRESS"),
        ])
    func names(code: KafkaError.Code, name: String) {
        #expect(code.name == name)
    }

    @Test("classification: retriable, fatal and kind follow the code")
    func classification() {
        #expect(KafkaError(code: .rebalanceInProgress).isRetriable)
        #expect(KafkaError(code: .allBrokersDown).kind == .transport)
        #expect(!KafkaError(code: .illegalGeneration).isRetriable)
        #expect(KafkaError(code: .fatal).isFatal && KafkaError(code: .fatal).kind == .fatal)
        #expect(KafkaError(code: .destroy).kind == .state)
        #expect(KafkaError(code: .timedOut).message == KafkaError.Code.timedOut.text)
    }
}
