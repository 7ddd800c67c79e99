import Foundation
import Kafka
import Synchronization
import TestSupport
import Testing

/// The fence on a real consumer group (librdkafka's mock cluster): a revoke waits, on the poll thread, for the
/// batches in flight of its partitions, so their offsets are committed before the partitions move.
@Suite("Batches across a rebalance (mock cluster)", .serialized, .timeLimit(.minutes(2)))
struct BatchRevokeTests {
    @Test("a revoke waits for the batch in flight; the batch's offsets are committed before the partitions move")
    func revokeWaitsForBatchInFlight() async throws {
        let cluster = try KafkaTestSupport.cluster(topics: ["revoke": 2])
        let producer = try KafkaProducer(
            configuration: KafkaTestSupport.producerConfiguration(cluster.bootstrapServers))
        _ = try await producer.send(KafkaTestSupport.messages(topic: "revoke", count: 40)).map { try $0.get() }
        let events = Mutex<[KafkaRebalanceEvent]>([])
        var configuration = KafkaTestSupport.consumerConfiguration(cluster.bootstrapServers, group: "g-revoke")
        // Cooperative (the worker's default): the second member's join revokes one of the two partitions. (An eager
        // revoke's commit is always refused by the mock cluster: docs/reference kafka-reliability.md §1.)
        configuration.autoCommitIntervalMs = 60_000  // only the commit on revoke counts here
        let first = try KafkaConsumer(
            configuration: configuration, rebalanceHandler: { event in events.withLock { $0.append(event) } })
        try first.subscribe(topics: ["revoke"])
        guard case .batch(let batch) = await first.nextBatch(upTo: 1000, window: .seconds(2), idleTimeout: .seconds(30))
        else {
            Issue.record("no batch")
            return
        }
        try #require(batch.messages.count == 40 && batch.fence.partitions.count == 2)

        let second = try KafkaConsumer(configuration: configuration)
        try second.subscribe(topics: ["revoke"])
        let revoking = await KafkaTestSupport.waitUntil(within: .seconds(30)) {
            events.withLock { $0.contains { if case .revoked(_, false) = $0 { true } else { false } } }
        }
        try #require(revoking, "the first member's partitions were not revoked: \(events.withLock { $0 })")
        let revoked: [KafkaTopicPartition] = events.withLock { events in
            for case .revoked(let partitions, false) in events { return partitions }
            return []
        }
        try await Task.sleep(for: .seconds(1))
        #expect(
            events.withLock { $0.last.map { if case .revoked = $0 { true } else { false } } } == true,
            "the rebalance went on while the batch was in flight")

        // Accepted a second after the revoke began: the revoke was still waiting for this batch (without the wait,
        // the generation would have ended and the offsets would be refused).
        let completion = first.complete(batch.fence)
        #expect(completion.refused.isEmpty && completion.errors.isEmpty, "the revoke did not wait for the batch")
        #expect(Set(completion.stored) == Set(batch.fence.partitions))
        let moved = await KafkaTestSupport.waitUntil(within: .seconds(30)) {
            (try? second.assignment()) == revoked.sorted()
        }
        #expect(moved, "the revoked partitions did not move to the second member")
        // The mock cluster refuses an OffsetCommit while the group is JOINING (REBALANCE_IN_PROGRESS), which a
        // cooperative rebalance under load can hit (docs: shared/reference/kafka-reliability.md §1; a real broker
        // accepts it). The offsets were stored either way; only a commit the mock took can be checked. On a busy
        // machine the refusal reaches the consumer's error events late: wait (bounded) for one of the two.
        let expected = batch.fence.claims.filter { revoked.contains($0.key) }.mapValues(\.nextOffset)
        var (reported, committed): ([KafkaError], [KafkaTopicPartition: Int64]) = ([], [:])
        let settled = await eventually(timeout: .seconds(15), interval: .milliseconds(100)) {
            if case .batch(let later) = await first.nextBatch(upTo: 1, window: .zero, idleTimeout: .milliseconds(200)) {
                reported += later.errors
            }
            if reported.contains(where: { $0.code == .rebalanceInProgress }) { return true }
            let offsets = (try? await second.committed(revoked, timeout: .seconds(2))) ?? []
            committed = Dictionary(uniqueKeysWithValues: offsets.map { ($0.topicPartition, $0.offset) })
            return committed == expected
        }
        #expect(
            settled,
            "the commit on revoke did not hold the batch's offsets (\(committed)); the consumer reported \(reported)")
        #expect(await first.close(timeout: .seconds(20)) != .timedOut)
        #expect(await second.close(timeout: .seconds(20)) != .timedOut)
    }

    @Test("a batch whose partitions were revoked before it completed stores nothing; nothing waits forever")
    func revokeWaitIsBounded() async throws {
        let cluster = try KafkaTestSupport.cluster(topics: ["bounded": 1])
        let producer = try KafkaProducer(
            configuration: KafkaTestSupport.producerConfiguration(cluster.bootstrapServers))
        _ = try await producer.send(KafkaTestSupport.messages(topic: "bounded", count: 10)).map { try $0.get() }
        var configuration = KafkaTestSupport.consumerConfiguration(cluster.bootstrapServers, group: "g-bounded")
        configuration.assignmentStrategy = .range  // eager: the second member's join revokes the one partition
        configuration.revokeWait = .seconds(1)
        let first = try KafkaConsumer(configuration: configuration)
        try first.subscribe(topics: ["bounded"])
        guard case .batch(let batch) = await first.nextBatch(upTo: 100, window: .seconds(1), idleTimeout: .seconds(30))
        else {
            Issue.record("no batch")
            return
        }
        let second = try KafkaConsumer(configuration: configuration)
        try second.subscribe(topics: ["bounded"])
        let revoking = await KafkaTestSupport.waitUntil(within: .seconds(30)) {
            !first.holdsCurrentPartition(batch.fence)
        }
        #expect(revoking, "the partition was not revoked")
        // The revoke waits at most revokeWait (1 s) for the batch that never completes, then ends its generation.
        let ended = await KafkaTestSupport.waitUntil(within: .seconds(10)) {
            !first.assignedPartitions.contains(where: { batch.fence.claims[$0]?.generation != nil })
                || first.assignedPartitions.isEmpty
        }
        #expect(ended, "the revoke waited past its bound for a batch that never completed")
        try await Task.sleep(for: .seconds(2))
        #expect(first.complete(batch.fence).refused == batch.fence.partitions)
        #expect(await first.close(timeout: .seconds(20)) != .timedOut)
        #expect(await second.close(timeout: .seconds(20)) != .timedOut)
    }
}
