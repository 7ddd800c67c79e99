import Kafka
import Synchronization
import TestSupport
import Testing

@Suite("Producer delivery failure and recovery", .serialized, .timeLimit(.minutes(2)))
struct ProducerFailureTests {
    @Test("a leader that stays down makes delivery fail with a timeout; sends succeed again once it is up")
    func leaderDown() async throws {
        let cluster = try KafkaTestSupport.cluster(topics: ["down": 1])
        try cluster.setPartitionLeader(topic: "down", partition: 0, broker: 2)
        var configuration = KafkaTestSupport.producerConfiguration(cluster.bootstrapServers)
        configuration.messageTimeoutMs = 2_000
        let logs = LogLines()
        let producer = try KafkaProducer(configuration: configuration, logHandler: { logs.append($0) })
        let message = KafkaOutgoingMessage(topic: "down", partition: 0, key: nil, value: Array("x".utf8))
        _ = try await producer.send(message)  // connected and healthy

        try cluster.setBrokerDown(2)
        let error = await #expect(throws: KafkaError.self) { try await producer.send(message) }
        #expect(error?.kind == .messageTimedOut)
        #expect(error?.persistenceStatus != nil)
        // librdkafka logs reach the app (its reconnect attempt may be logged after the timeout on a loaded machine).
        #expect(await eventually(timeout: .seconds(15)) { logs.contains { $0.message.contains("Connection refused") } })

        try cluster.setBrokerUp(2)
        var report: KafkaDeliveryReport?
        for _ in 0..<10 where report == nil {
            report = try? await producer.send(message)
        }
        #expect(report?.partition == 0)
        #expect(await producer.close(timeout: .seconds(10)) == .closed)
    }
}

/// Collects librdkafka log lines from any thread.
final class LogLines: Sendable {
    private let lines = Mutex<[KafkaLogEntry]>([])

    func append(_ entry: KafkaLogEntry) { lines.withLock { $0.append(entry) } }

    func contains(where predicate: (KafkaLogEntry) -> Bool) -> Bool { lines.withLock { $0.contains(where: predicate) } }
}
