import Foundation
import Kafka
import Synchronization
import Testing

/// The generation fence on a real consumer group (librdkafka's mock cluster): the coordinator answers heartbeats
/// with ILLEGAL_GENERATION, so the member loses its assignment and gets the same partition back.
@Suite("Generation fence (mock cluster)", .serialized, .timeLimit(.minutes(2)))
struct GenerationFenceIntegrationTests {
    @Test("lost → re-assigned: a record of the lost generation cannot store its offset; the re-fetch starts at the commit")
    func lostAndReassigned() async throws {
        let cluster = try KafkaTestSupport.cluster(topics: ["fence": 1])
        let producer = try KafkaProducer(
            configuration: KafkaTestSupport.producerConfiguration(cluster.bootstrapServers))
        _ = try await producer.send(KafkaTestSupport.messages(topic: "fence", count: 20)).map { try $0.get() }
        let rebalances = Mutex<[KafkaRebalanceEvent]>([])
        let consumer = try KafkaConsumer(
            configuration: KafkaTestSupport.consumerConfiguration(cluster.bootstrapServers, group: "g-fence"),
            rebalanceHandler: { event in rebalances.withLock { $0.append(event) } })
        try consumer.subscribe(topics: ["fence"])

        let first = await KafkaTestSupport.consume(consumer, count: 20, store: false)
        try #require(first.count == 20)
        #expect(consumer.storeOffsets(after: [first[4]]).isEmpty)
        try await consumer.commit()
        let stale = first[15]  // processed by the app, but only after the assignment is lost

        // Heartbeat (ApiKey 12) → ILLEGAL_GENERATION (22): librdkafka treats the assignment as lost and rejoins.
        cluster.pushRequestErrors(apiKey: 12, code: KafkaError.Code(rawValue: 22), count: 1)
        let reassigned = await KafkaTestSupport.waitUntil(within: .seconds(60)) {
            let events = rebalances.withLock { $0 }
            guard let lost = events.firstIndex(of: .revoked([KafkaTopicPartition(topic: "fence", partition: 0)],
                                                               lost: true))
            else { return false }
            return events[lost...].contains { if case .assigned = $0 { true } else { false } }
        }
        try #require(reassigned, "the assignment was not lost and re-assigned: \(rebalances.withLock { $0 })")

        let refused = consumer.storeOffsets(after: [stale])
        #expect(refused[stale.topicPartition]?.kind == .state, "the lost generation's offset was stored")
        let again = await KafkaTestSupport.consume(consumer, count: 15)
        #expect(again.first?.offset == 5, "the re-fetch did not start at the committed offset")
        #expect(again.allSatisfy { $0.assignmentGeneration > stale.assignmentGeneration })
        try await consumer.commit()
        let committed = try await consumer.committed([stale.topicPartition], timeout: .seconds(5))
        #expect(committed.map(\.offset) == [20])
        #expect(await consumer.close(timeout: .seconds(20)) != .timedOut)
    }
}
