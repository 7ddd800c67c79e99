import Kafka
import Testing

@Suite("Record batches: records that are ranges of one shared buffer", .serialized, .timeLimit(.minutes(2)))
struct RecordBatchTests {
    /// A buffer like an HTTP body: values separated by bytes that are no record's, keys appended one by one.
    private func batch(topic: String, count: Int, timestampMs: Int64)
        -> (KafkaRecordBatch, [(key: [UInt8], value: [UInt8])])
    {
        var body: [UInt8] = Array("[".utf8)
        var ranges: [Range<Int>] = []
        var expected: [(key: [UInt8], value: [UInt8])] = []
        for index in 0..<count {
            let value = Array("{\"n\":\(index),\"bin\":\"".utf8) + [0, 255, 10] + Array("\"}".utf8)
            ranges.append(body.count..<(body.count + value.count))
            body += value + Array(",\n ".utf8)
            expected.append((Array("key-\(index % 7)".utf8), value))
        }
        var batch = KafkaRecordBatch(topic: topic, values: body, timestampMs: timestampMs)
        for (range, record) in zip(ranges, expected) { batch.append(value: range, key: record.key) }
        return (batch, expected)
    }

    @Test("with a completion: one report per record in order; keys, values and the timestamp arrive byte-exact")
    func completionSend() async throws {
        let cluster = try KafkaTestSupport.cluster(topics: ["ranges": 4])
        let producer = try KafkaProducer(
            configuration: KafkaTestSupport.producerConfiguration(cluster.bootstrapServers))
        let (batch, expected) = batch(topic: "ranges", count: 150, timestampMs: 1_700_000_000_456)
        #expect(batch.count == 150)
        #expect(batch.value(at: 3) == expected[3].value[...] && batch.key(at: 3) == expected[3].key[...])

        let reports = await withCheckedContinuation { continuation in
            producer.send(batch) { continuation.resume(returning: $0) }
        }
        let delivered = try reports.map { try $0.get() }
        #expect(delivered.count == 150)
        #expect(Set(delivered.map { "\($0.partition)/\($0.offset)" }).count == 150)
        #expect(await producer.close(timeout: .seconds(5)) == .closed)

        let received = try await KafkaConsumer.readAll(topic: "ranges", bootstrapServers: cluster.bootstrapServers)
        let byPlace = Dictionary(uniqueKeysWithValues: received.map { ("\($0.partition)/\($0.offset)", $0) })
        for (report, original) in zip(delivered, expected) {
            let message = try #require(byPlace["\(report.partition)/\(report.offset)"])
            #expect(message.key == original.key)
            #expect(message.value == original.value)
            #expect(message.headers.isEmpty)
            #expect(message.timestampMs == 1_700_000_000_456)
        }
    }

    @Test("awaited: a full local queue is waited out, every record delivered")
    func awaitedSend() async throws {
        let cluster = try KafkaTestSupport.cluster(topics: ["ranges-awaited": 2])
        var configuration = KafkaTestSupport.producerConfiguration(cluster.bootstrapServers)
        configuration.queueMaxMessages = 10  // forces the _QUEUE_FULL back-off path
        let producer = try KafkaProducer(configuration: configuration)
        let (batch, expected) = batch(topic: "ranges-awaited", count: 120, timestampMs: 1_700_000_000_789)

        let delivered = try await producer.send(batch).map { try $0.get() }
        #expect(delivered.count == 120)
        await producer.close(timeout: .seconds(5))
        let received = try await KafkaConsumer.readAll(
            topic: "ranges-awaited", bootstrapServers: cluster.bootstrapServers)
        #expect(received.map(\.value).sorted { $0.lexicographicallyPrecedes($1) }
            == expected.map(\.value).sorted { $0.lexicographicallyPrecedes($1) })
    }

    @Test("a record the producer refuses (larger than message.max.bytes) fails alone; the others are delivered")
    func refusedRecordFailsAlone() async throws {
        let cluster = try KafkaTestSupport.cluster(topics: ["ranges-refused": 1])
        var configuration = KafkaTestSupport.producerConfiguration(cluster.bootstrapServers)
        configuration.messageMaxBytes = 10_000
        let producer = try KafkaProducer(configuration: configuration)
        var batch = KafkaRecordBatch(topic: "ranges-refused")
        batch.append(copying: Array("small".utf8), key: Array("a".utf8))
        batch.append(copying: [UInt8](repeating: 0x41, count: 20_000), key: Array("b".utf8))
        batch.append(copying: Array("also small".utf8), key: Array("c".utf8))

        let results = await withCheckedContinuation { continuation in
            producer.send(batch) { continuation.resume(returning: $0) }
        }
        #expect(results.count == 3)
        #expect((try? results[0].get()) != nil)
        #expect((try? results[2].get()) != nil)
        guard case .failure(let error) = results[1] else {
            Issue.record("the oversized record was delivered")
            return
        }
        #expect(error.code == .messageSizeTooLarge)
        await producer.close(timeout: .seconds(5))
    }
}
