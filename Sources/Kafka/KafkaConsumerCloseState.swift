/// What closing a consumer must know to stay clear of librdkafka 2.0.2's abort in `rd_kafka_destroy`
/// (`rdkafka_sticky_assignor.c:1896: rd_kafka_sticky_assignor_state_destroy: Assertion 'assignor_state' failed`;
/// librdkafka #4312, fixed in 2.3.0 by #4381). Pure state machine: the close path performs what it returns.
///
/// The defect (v2.0.2 source): `rd_kafka_cgrp_destroy_final` (`rdkafka_cgrp.c:372`) calls the assignor's
/// `destroy_state_cb` whenever an assignor was chosen, without checking its state for NULL. The assignor is chosen
/// when a JoinGroup response arrives (`rdkafka_cgrp.c:1939`); cooperative-sticky creates its state only in
/// `on_assignment_cb`, on a successful SyncGroup (`rdkafka_cgrp.c:1525`); once the consumer is terminating, JoinGroup
/// and SyncGroup responses are ignored (`:1856`, `:1483`). So a member closed after its first JoinGroup response
/// but before its first successful SyncGroup (typically: that SyncGroup was answered `REBALANCE_IN_PROGRESS` because
/// another member joined or left, and it is re-joining) aborts in `rd_kafka_destroy`, after a clean
/// `rd_kafka_consumer_close`. range and roundrobin keep no state and are not affected.
///
/// Every assignment callback follows a successful SyncGroup, so once one was served the state exists for good (the
/// group's protocol never changes with a single configured strategy). A cooperative-sticky consumer that subscribed
/// and was never assigned is closed (group left, nothing to commit) but its handle is abandoned, not destroyed.
/// Whether its JoinGroup response already arrived cannot be read back reliably: `rd_kafka_rebalance_protocol` answers
/// through the group's op queue, which closing disables, and a response can land between asking and closing.
struct KafkaConsumerCloseState {
    enum Phase: Equatable {
        case open, closing, closed
    }

    /// What to do with the `rd_kafka_t` once the consumer is closed (or dropped unclosed).
    enum HandleAction: Equatable {
        /// `rd_kafka_destroy`.
        case destroy
        /// Leave it undestroyed for the rest of the process (its threads end with the process).
        case abandon
    }

    private(set) var phase = Phase.open
    /// `partition.assignment.strategy` lists cooperative-sticky, the only 2.0.2 assignor with state.
    let usesCooperativeSticky: Bool
    /// ``KafkaConsumer/subscribe(topics:)`` succeeded: the consumer joins a group (manual assignment never does).
    private(set) var subscribed = false
    /// An assignment callback was served: librdkafka has created the assignor's state.
    private(set) var assignmentServed = false

    /// - Parameter assignmentStrategy: the effective `partition.assignment.strategy` value, e.g. `range,roundrobin`.
    init(assignmentStrategy: String) {
        usesCooperativeSticky = assignmentStrategy.split { $0 == "," || $0.isWhitespace }.contains("cooperative-sticky")
    }

    mutating func didSubscribe() {
        subscribed = true
    }

    /// Called from the rebalance callback for every assignment (also an empty one).
    mutating func didServeAssignment() {
        assignmentServed = true
    }

    /// Whether `rd_kafka_destroy` may hit the assertion now.
    var destroyMayAbort: Bool { usesCooperativeSticky && subscribed && !assignmentServed }

    /// Starts closing. - Returns: `false` when closing already started (the later caller does nothing).
    mutating func beginClose() -> Bool {
        guard phase == .open else { return false }
        phase = .closing
        return true
    }

    /// After `rd_kafka_consumer_close` returned, or when the consumer is dropped without closing.
    mutating func finish() -> HandleAction {
        phase = .closed
        return destroyMayAbort ? .abandon : .destroy
    }
}
