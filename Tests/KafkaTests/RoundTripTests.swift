import Kafka
import Testing

@Suite("Produce and consume round trip", .serialized, .timeLimit(.minutes(2)))
struct RoundTripTests {
    @Test("key, value and headers survive byte-exact, including null key, empty value and binary data")
    func roundTrip() async throws {
        let cluster = try KafkaTestSupport.cluster(topics: ["rt": 3])
        let producer = try KafkaProducer(
            configuration: KafkaTestSupport.producerConfiguration(cluster.bootstrapServers))
        let binary: [UInt8] = Array(0...255)
        let sent = [
            KafkaOutgoingMessage(topic: "rt", partition: 0, key: nil, value: Array("no key".utf8)),
            KafkaOutgoingMessage(topic: "rt", partition: 0, key: Array("k".utf8), value: []),
            KafkaOutgoingMessage(
                topic: "rt", partition: 0, key: binary, value: binary.reversed(),
                headers: [
                    KafkaHeader(key: "bin", value: [0, 255, 10, 13]), KafkaHeader(key: "null", value: nil),
                    KafkaHeader(key: "text", string: "héllo"), KafkaHeader(key: "bin", value: [1]),
                ],
                timestampMs: 1_700_000_000_123),
        ]
        var reports: [KafkaDeliveryReport] = []
        for message in sent { reports.append(try await producer.send(message)) }
        #expect(reports.map(\.offset) == [0, 1, 2])
        #expect(reports.allSatisfy { $0.topic == "rt" && $0.partition == 0 })
        #expect(await producer.close(timeout: .seconds(5)) == .closed)

        let received = try await KafkaConsumer.readAll(topic: "rt", bootstrapServers: cluster.bootstrapServers)
        #expect(received.count == sent.count)
        for (message, original) in zip(received, sent) {
            #expect(message.key == original.key)
            #expect(message.value == original.value)
            #expect(message.headers == original.headers)
        }
        #expect(received.last?.timestampMs == 1_700_000_000_123)
        #expect(received.last?.timestampType == .createTime)
    }

    @Test("the batch send returns one report per record, in order, and keys keep their partition")
    func batchSend() async throws {
        let cluster = try KafkaTestSupport.cluster(topics: ["batch": 4])
        var configuration = KafkaTestSupport.producerConfiguration(cluster.bootstrapServers)
        configuration.queueMaxMessages = 10  // forces the _QUEUE_FULL back-off path
        let producer = try KafkaProducer(configuration: configuration)
        let messages = KafkaTestSupport.messages(topic: "batch", count: 200)
        let results = await producer.send(messages)
        let reports = try results.map { try $0.get() }
        #expect(reports.count == 200)
        var partitionOfKey: [[UInt8]: Int32] = [:]
        for (message, report) in zip(messages, reports) {
            #expect(partitionOfKey[message.key!, default: report.partition] == report.partition)
            partitionOfKey[message.key!] = report.partition
        }
        #expect(Set(reports.map { "\($0.partition)/\($0.offset)" }).count == 200)
        await producer.close(timeout: .seconds(5))
        let back = try await KafkaConsumer.readAll(topic: "batch", bootstrapServers: cluster.bootstrapServers)
        #expect(
            back.map { String(decoding: $0.value, as: UTF8.self) }.sorted()
                == messages.map { String(decoding: $0.value, as: UTF8.self) }.sorted())
    }
}
