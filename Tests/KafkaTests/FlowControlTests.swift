import Kafka
import Testing

@Suite("Flow control and pausing", .serialized, .timeLimit(.minutes(2)))
struct FlowControlTests {
    @Test("with a tiny buffer and a slow reader every record arrives exactly once, in order per partition")
    func tinyBuffer() async throws {
        let cluster = try KafkaTestSupport.cluster(topics: ["flow": 3])
        let producer = try KafkaProducer(
            configuration: KafkaTestSupport.producerConfiguration(cluster.bootstrapServers))
        let sent = try await producer.send(KafkaTestSupport.messages(topic: "flow", count: 300, keys: 9)).map {
            try $0.get()
        }
        var configuration = KafkaTestSupport.consumerConfiguration(cluster.bootstrapServers, group: "g-flow")
        configuration.maxBufferedMessages = 10
        let consumer = try KafkaConsumer(configuration: configuration)
        try consumer.subscribe(topics: ["flow"])

        var received: [KafkaMessage] = []
        var appPaused = false
        for await event in consumer.events {
            guard case .message(let message) = event else { continue }
            received.append(message)
            consumer.storeOffsets(after: [message])
            if received.count % 50 == 0 { try await Task.sleep(for: .milliseconds(300)) }  // slow reader
            if received.count == 120 {  // the app's own pause composes with flow control
                consumer.pauseAll()
                appPaused = true
                try await Task.sleep(for: .milliseconds(500))
                consumer.resumeAll()
            }
            if received.count == sent.count { break }
        }
        #expect(appPaused)
        #expect(received.count == sent.count)
        #expect(Set(received.map { "\($0.partition)/\($0.offset)" }).count == sent.count)
        for partition in Set(received.map(\.partition)) {
            let offsets = received.filter { $0.partition == partition }.map(\.offset)
            #expect(offsets == Array(0..<Int64(offsets.count)))
        }
        #expect(await consumer.close(timeout: .seconds(20)) != .timedOut)
    }

    @Test("app pause stops delivery; statistics report lag, log start and committed offset")
    func appPause() async throws {
        let cluster = try KafkaTestSupport.cluster(topics: ["pause": 1])
        let producer = try KafkaProducer(
            configuration: KafkaTestSupport.producerConfiguration(cluster.bootstrapServers))
        for result in await producer.send(KafkaTestSupport.messages(topic: "pause", count: 10)) { _ = try result.get() }
        let configuration = KafkaTestSupport.consumerConfiguration(cluster.bootstrapServers, group: "g-pause")
        let consumer = try KafkaConsumer(configuration: configuration)
        try consumer.subscribe(topics: ["pause"])
        let firstBatch = await KafkaTestSupport.consume(consumer, count: 10)
        #expect(firstBatch.count == 10)
        consumer.pauseAll()
        try await Task.sleep(for: .milliseconds(300))
        for result in await producer.send(KafkaTestSupport.messages(topic: "pause", count: 5, from: 10)) {
            _ = try result.get()
        }
        let whilePaused = await KafkaTestSupport.consume(consumer, count: 1, within: .seconds(2))
        #expect(whilePaused.isEmpty)
        // Unpaused, the new records are fetched (high watermark 15) but not stored: the lag is 5.
        consumer.resumeAll()
        try await consumer.commit()
        let lagging = await KafkaTestSupport.waitUntil(within: .seconds(10)) {
            consumer.partitionStatistics().contains {
                $0.partition == 0 && $0.highWatermark == 15 && $0.committedOffset == 10 && $0.consumerLag == 5
            }
        }
        #expect(lagging, "\(consumer.partitionStatistics())")
        #expect(consumer.partitionStatistics().first { $0.partition == 0 }?.lowWatermark == 0)
        #expect(await consumer.close(timeout: .seconds(20)) != .timedOut)
    }
}
