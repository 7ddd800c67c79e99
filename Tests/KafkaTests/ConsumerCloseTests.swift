import Synchronization
import Testing

@testable import Kafka

/// librdkafka 2.0.2 aborts in `rd_kafka_destroy` when a cooperative-sticky consumer is closed after its first
/// JoinGroup response and before its first successful SyncGroup (#4312; see `KafkaConsumerCloseState`).
@Suite("Consumer close around the first group join", .serialized, .timeLimit(.minutes(2)))
struct ConsumerCloseTests {
    @Test(
        "destroying is safe unless cooperative-sticky subscribed and never assigned",
        arguments: [
            ("cooperative-sticky", true, false, KafkaConsumerCloseState.HandleAction.abandon),
            ("cooperative-sticky", true, true, .destroy),
            ("cooperative-sticky", false, false, .destroy),  // manual assignment: no group join
            ("range", true, false, .destroy),
            ("roundrobin", true, false, .destroy),
            ("range, cooperative-sticky", true, false, .abandon),
            ("", true, false, .destroy),
        ])
    func handleAction(
        strategy: String, subscribed: Bool, assigned: Bool, expected: KafkaConsumerCloseState.HandleAction
    ) {
        var state = KafkaConsumerCloseState(assignmentStrategy: strategy)
        if subscribed { state.didSubscribe() }
        if assigned { state.didServeAssignment() }
        let first = state.beginClose()
        let second = state.beginClose()
        #expect(first && !second, "a second close does nothing")
        let action = state.finish()
        #expect(action == expected)
        #expect(state.phase == .closed)
    }

    @Test("closed between its first JoinGroup and SyncGroup responses: closes without aborting the process")
    func closeDuringFirstJoin() async throws {
        let cluster = try KafkaTestSupport.cluster(topics: ["join": 4])
        // Hold every broker's next SyncGroup answer for 15 s, so the close lands after the JoinGroup response.
        for broker: Int32 in 1...3 {
            try cluster.pushBrokerRequestError(broker: broker, apiKey: 14, code: .noError, rttMs: 15_000)
        }
        let log = LogLines()
        var configuration = KafkaTestSupport.consumerConfiguration(cluster.bootstrapServers, group: "g-first-join")
        configuration.extra = ["debug": "cgrp", "log_level": "7"]
        let consumer = try KafkaConsumer(configuration: configuration, logHandler: { log.append($0) })
        try consumer.subscribe(topics: ["join"])
        let joined = await KafkaTestSupport.waitUntil(within: .seconds(20)) {
            log.contains { $0.facility == "JOINGROUP" && $0.message.contains("(no error)") }
        }
        #expect(joined, "no JoinGroup response")
        #expect(try consumer.assignment().isEmpty)

        #expect(await consumer.close(timeout: .seconds(20)) == .closed)
        #expect(log.contains { $0.facility == "CLOSE" }, "the handle should have been left undestroyed")
        // The worker exits right after leaving a handle undestroyed; this test process goes on. The handle's broker
        // threads still run, so its mock cluster must not go away under them (once it did, librdkafka 2.0.2 later
        // asserted in rd_kafka_broker_destroy_final on one of those threads and took the whole test run down).
        AbandonedClients.keepUntilExit(consumer, cluster)
    }

    @Test("closed after its first assignment: destroyed as usual")
    func closeAfterAssignment() async throws {
        let cluster = try KafkaTestSupport.cluster(topics: ["assigned": 2])
        let log = LogLines()
        let consumer = try KafkaConsumer(
            configuration: KafkaTestSupport.consumerConfiguration(cluster.bootstrapServers, group: "g-assigned"),
            logHandler: { log.append($0) })
        try consumer.subscribe(topics: ["assigned"])
        #expect(try await KafkaTestSupport.waitUntil(within: .seconds(20)) { try consumer.assignment().count == 2 })
        #expect(await consumer.close(timeout: .seconds(20)) == .closed)
        #expect(!log.contains { $0.facility == "CLOSE" })
        #expect(consumer.client.isDestroyed)
    }
}

/// Clients deliberately left undestroyed (see ``ConsumerCloseTests/closeDuringFirstJoin()``), kept with the mock
/// cluster they talk to until the test process exits.
enum AbandonedClients {
    private static let kept = Mutex<[any Sendable]>([])

    static func keepUntilExit(_ objects: any Sendable...) {
        kept.withLock { $0.append(contentsOf: objects) }
    }
}
