import Kafka
import Synchronization
import Testing

@Suite("Consumer groups and offsets", .serialized, .timeLimit(.minutes(3)))
struct ConsumerGroupTests {
    @Test("two consumers in one group get disjoint partitions and together every record")
    func disjointPartitions() async throws {
        let cluster = try KafkaTestSupport.cluster(topics: ["grp": 6])
        let producer = try KafkaProducer(
            configuration: KafkaTestSupport.producerConfiguration(cluster.bootstrapServers))
        let sent = try await producer.send(KafkaTestSupport.messages(topic: "grp", count: 120, keys: 24)).map {
            try $0.get()
        }
        #expect(Set(sent.map(\.partition)).count == 6)

        let configuration = KafkaTestSupport.consumerConfiguration(cluster.bootstrapServers, group: "g-disjoint")
        let first = try KafkaConsumer(configuration: configuration)
        let second = try KafkaConsumer(configuration: configuration)
        try first.subscribe(topics: ["grp"])
        try second.subscribe(topics: ["grp"])
        let bothAssigned = try await KafkaTestSupport.waitUntil(within: .seconds(40)) {
            let a = try first.assignment()
            let b = try second.assignment()
            return !a.isEmpty && !b.isEmpty && a.count + b.count == 6
        }
        #expect(bothAssigned)
        #expect(Set(try first.assignment()).isDisjoint(with: try second.assignment()))

        // Both read concurrently until every record arrived at one of them.
        let seen = SeenOffsets()
        let stopper = Task {
            _ = await KafkaTestSupport.waitUntil(within: .seconds(30)) { seen.count >= 120 }
            first.stopConsuming()
            second.stopConsuming()
        }
        async let a: Void = seen.drain(first, until: 120)
        async let b: Void = seen.drain(second, until: 120)
        _ = await (a, b)
        await stopper.value
        #expect(seen.keys == Set(sent.map { "\($0.partition)/\($0.offset)" }))
        #expect(await first.close(timeout: .seconds(20)) != .timedOut)
        #expect(await second.close(timeout: .seconds(20)) != .timedOut)
    }

    @Test("after storing offsets and committing, a restarted consumer resumes right after them")
    func resumeAfterCommit() async throws {
        let cluster = try KafkaTestSupport.cluster(topics: ["resume": 2])
        let producer = try KafkaProducer(
            configuration: KafkaTestSupport.producerConfiguration(cluster.bootstrapServers))
        let sent = try await producer.send(KafkaTestSupport.messages(topic: "resume", count: 40)).map { try $0.get() }
        let configuration = KafkaTestSupport.consumerConfiguration(cluster.bootstrapServers, group: "g-resume")

        // Process (store) only the first 5 records of each partition, then commit and close.
        let consumer = try KafkaConsumer(configuration: configuration)
        try consumer.subscribe(topics: ["resume"])
        let firstRun = await KafkaTestSupport.consume(consumer, count: 40, store: false)
        #expect(firstRun.count == 40)
        let stored = firstRun.filter { $0.offset == 4 }
        #expect(consumer.storeOffsets(after: stored).isEmpty)
        try await consumer.commit()
        let committed = try await consumer.committed(
            [KafkaTopicPartition(topic: "resume", partition: 0), KafkaTopicPartition(topic: "resume", partition: 1)],
            timeout: .seconds(5))
        #expect(committed.map(\.offset) == [5, 5])
        #expect(await consumer.close(timeout: .seconds(20)) != .timedOut)

        // The restarted consumer starts at offset 5 in each partition.
        let restarted = try KafkaConsumer(configuration: configuration)
        try restarted.subscribe(topics: ["resume"])
        let secondRun = await KafkaTestSupport.consume(restarted, count: 30)
        let expected = Set(sent.filter { $0.offset >= 5 }.map { "\($0.partition)/\($0.offset)" })
        #expect(Set(secondRun.map { "\($0.partition)/\($0.offset)" }) == expected)
        #expect(secondRun.count == 30)
        for partition: Int32 in [0, 1] {
            #expect(secondRun.first { $0.partition == partition }?.offset == 5)
        }
        await restarted.close(timeout: .seconds(20))
    }
}

/// Offsets seen by several consumers of one group, and how often.
private final class SeenOffsets: Sendable {
    private let seen = Mutex<[String: Int]>([:])

    var count: Int { seen.withLock { $0.count } }
    var keys: Set<String> { seen.withLock { Set($0.keys) } }

    func drain(_ consumer: KafkaConsumer, until total: Int) async {
        for await event in consumer.events {
            guard case .message(let message) = event else { continue }
            consumer.storeOffsets(after: [message])
            let count = seen.withLock { seen in
                seen["\(message.partition)/\(message.offset)", default: 0] += 1
                return seen.count
            }
            if count >= total { break }
        }
    }
}
