import Testing

@testable import Kafka

/// The consumer's fence, driven without a broker: batches claim their partitions in the generation their records
/// were fetched in; completing one stores offsets only in that generation, in order, never past an abandoned one.
/// (Ported from the worker's former `PartitionTracker` tests, which mirrored this state outside the consumer.)
@Suite("Consumer fence: batches, generations, offsets")
struct BatchFenceTests {
    private static let p0 = KafkaTopicPartition(topic: "t", partition: 0)
    private static let p1 = KafkaTopicPartition(topic: "t", partition: 1)

    private static func record(_ tp: KafkaTopicPartition, _ offset: Int64) -> KafkaConsumerEvent {
        .record(tp, offset)
    }

    /// Delivers `events` and hands everything buffered out as one batch.
    private static func batch(_ state: inout KafkaConsumerState, _ events: [KafkaConsumerEvent] = [])
        -> (messages: [KafkaMessage], fence: KafkaBatchFence, dropped: Int)
    {
        for event in events { _ = state.deliver(event) }
        var fence = KafkaBatchFence(batchID: state.progress.newBatch(), claims: [:])
        let accounted = state.account(state.take(upTo: 10_000), into: &fence)
        return (accounted.messages, fence, accounted.dropped)
    }

    private static func stored(_ state: inout KafkaConsumerState, _ fence: KafkaBatchFence) -> [KafkaTopicPartition: Int64] {
        Dictionary(uniqueKeysWithValues: state.progress.complete(fence).store.map { ($0.topicPartition, $0.offset) })
    }

    @Test("lost → re-assigned: a batch of the lost generation stores nothing and does not count as durable")
    func lostThenReassigned() {
        var state = KafkaConsumerState(maxBufferedMessages: 100)
        _ = state.assign([Self.p0])
        let stale = Self.batch(&state, [Self.record(Self.p0, 10)])
        #expect(stale.messages.count == 1)
        // All brokers down past the session timeout: the assignment is lost, then the same partition comes back.
        state.endRevoke([Self.p0])
        _ = state.assign([Self.p0])
        #expect(!state.progress.holdsCurrentPartition(stale.fence))
        // The re-fetch restarts at the committed offset 5.
        let refetched = Self.batch(&state, [Self.record(Self.p0, 5), .partitionEOF(topic: "t", partition: 0, offset: 6, generation: 0)])
        #expect(state.progress.allReachedEnd && !state.progress.isCaughtUp, "in flight, yet caught up")
        #expect(state.progress.complete(stale.fence).refused == [Self.p0], "the lost generation's offset was stored")
        #expect(!state.progress.isCaughtUp, "offset 11 of the lost generation counted as durable")
        #expect(Self.stored(&state, refetched.fence) == [Self.p0: 6])
        #expect(state.progress.isCaughtUp)
    }

    @Test("claims hold each partition's highest offset + 1, whatever the interleaving (random batches)")
    func claimsArePerPartitionMaximum() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            var state = KafkaConsumerState(maxBufferedMessages: 10_000)
            let tps = (0..<3).map { KafkaTopicPartition(topic: "t", partition: Int32($0)) }
            _ = state.assign(tps)
            let events = (0..<Int.random(in: 1..<60, using: &random)).map { _ in
                Self.record(tps.randomElement(using: &random)!, Int64.random(in: 0..<20, using: &random))
            }
            var expected: [KafkaTopicPartition: Int64] = [:]
            for case .message(let m) in events { expected[m.topicPartition] = max(expected[m.topicPartition] ?? 0, m.offset + 1) }
            let taken = Self.batch(&state, events)
            #expect(taken.messages.count == events.count)
            #expect(taken.fence.claims.mapValues(\.nextOffset) == expected)
        }
    }

    @Test("records of an ended generation are dropped in runs; the others are claimed")
    func dropsEndedGeneration() {
        var state = KafkaConsumerState(maxBufferedMessages: 100)
        _ = state.assign([Self.p0, Self.p1])
        for event in [Self.record(Self.p0, 1), Self.record(Self.p1, 3)] { _ = state.deliver(event) }
        let taken = state.take(upTo: 100)
        // p1 is lost and re-assigned between the take and the hand-out to the batch.
        state.endRevoke([Self.p1])
        _ = state.assign([Self.p1])
        var fence = KafkaBatchFence(batchID: state.progress.newBatch(), claims: [:])
        let accounted = state.account(taken, into: &fence)
        #expect(accounted.messages.map(\.offset) == [1])
        #expect(accounted.dropped == 1)
        #expect(fence.partitions == [Self.p0])
    }

    @Test("after an abandoned batch, later batches of the partition's generation store no offset; the next generation does")
    func abandonedBatchLeavesAGap() {
        var state = KafkaConsumerState(maxBufferedMessages: 100)
        _ = state.assign([Self.p0, Self.p1])
        let first = Self.batch(&state, [Self.record(Self.p0, 9)])
        let second = Self.batch(&state, [Self.record(Self.p0, 10), Self.record(Self.p1, 4)])
        state.progress.abandon(first.fence)
        let completion = state.progress.complete(second.fence)
        #expect(completion.store.map(\.topicPartition) == [Self.p1])
        #expect(completion.refused == [Self.p0])
        state.endRevoke([Self.p0])
        _ = state.assign([Self.p0])
        let later = Self.batch(&state, [Self.record(Self.p0, 5)])
        #expect(Self.stored(&state, later.fence) == [Self.p0: 6], "the gap outlived its generation")
    }

    @Test("two batches in flight on one partition: offsets are stored in order, never ahead of an earlier batch")
    func offsetsInOrder() {
        var state = KafkaConsumerState(maxBufferedMessages: 100)
        _ = state.assign([Self.p0])
        let first = Self.batch(&state, [Self.record(Self.p0, 0), Self.record(Self.p0, 1)])
        let second = Self.batch(&state, [Self.record(Self.p0, 2)])
        #expect(Self.stored(&state, second.fence).isEmpty, "the second batch's offset was stored before the first's")
        #expect(state.progress.hasInFlight([Self.p0]))
        #expect(Self.stored(&state, first.fence) == [Self.p0: 3])
        #expect(!state.progress.hasInFlight([Self.p0]))
    }

    @Test("a revoke hands out nothing more; retainCurrent releases the revoking partition, offsets of the rest store")
    func revokeReleasesPartitions() {
        var state = KafkaConsumerState(maxBufferedMessages: 100)
        _ = state.assign([Self.p0, Self.p1])
        var taken = Self.batch(&state, [Self.record(Self.p0, 1), Self.record(Self.p1, 7)])
        state.beginRevoke([Self.p1])
        #expect(state.progress.hasInFlight([Self.p1]), "the revoke would not wait for the batch in flight")
        #expect(state.progress.retainCurrent(&taken.fence) == [Self.p1])
        #expect(!state.progress.hasInFlight([Self.p1]), "the revoke still waits for a released partition")
        #expect(Self.stored(&state, taken.fence) == [Self.p0: 2])
        state.endRevoke([Self.p1])
        #expect(state.progress.assignedPartitions == [Self.p0])
    }

    @Test("a revoking partition's batch in flight may still store its offset until the revoke ends")
    func completeDuringRevoke() {
        var state = KafkaConsumerState(maxBufferedMessages: 100)
        _ = state.assign([Self.p0])
        let taken = Self.batch(&state, [Self.record(Self.p0, 3)])
        state.beginRevoke([Self.p0])
        _ = state.deliver(Self.record(Self.p0, 4))
        #expect(state.bufferedMessages == 0, "a record was buffered for a partition being revoked")
        #expect(Self.stored(&state, taken.fence) == [Self.p0: 4])
    }

    @Test("an end-of-partition seen in an ended generation does not count")
    func staleEndOfPartition() {
        var state = KafkaConsumerState(maxBufferedMessages: 100)
        let first = state.assign([Self.p0])
        state.endRevoke([Self.p0])
        let second = state.assign([Self.p0])
        state.progress.reachedEnd(Self.p0, nextOffset: 100, generation: first)
        #expect(!state.progress.allReachedEnd)
        state.progress.reachedEnd(Self.p0, nextOffset: 40, generation: second)
        #expect(state.progress.allReachedEnd && state.progress.isCaughtUp)
    }

    // MARK: - Several batches in flight (N writers)

    @Test("a batch released by a revoke is a gap: a later batch of the partition cannot store past it")
    func releasedBatchIsAGap() {
        var state = KafkaConsumerState(maxBufferedMessages: 100)
        _ = state.assign([Self.p0])
        var first = Self.batch(&state, [Self.record(Self.p0, 0), Self.record(Self.p0, 1)])
        let second = Self.batch(&state, [Self.record(Self.p0, 2)])
        state.beginRevoke([Self.p0])
        // The first batch's writer starts after the revoke began and lets the partition go; the second completes.
        #expect(state.progress.retainCurrent(&first.fence) == [Self.p0])
        #expect(state.progress.complete(second.fence).refused == [Self.p0], "offset 3 stored past records 0-1")
        #expect(!state.progress.hasInFlight([Self.p0]), "the revoke would wait for batches that can never store")
    }

    @Test("a later abandoned batch does not block an earlier durable one")
    func laterGapDoesNotBlockEarlier() {
        var state = KafkaConsumerState(maxBufferedMessages: 100)
        _ = state.assign([Self.p0])
        let first = Self.batch(&state, [Self.record(Self.p0, 0)])
        let second = Self.batch(&state, [Self.record(Self.p0, 1)])
        state.progress.abandon(second.fence)
        #expect(Self.stored(&state, first.fence) == [Self.p0: 1])
    }

    @Test("a durable batch behind one that is then abandoned is never stored and leaves nothing in flight")
    func durableBehindAbandoned() {
        var state = KafkaConsumerState(maxBufferedMessages: 100)
        _ = state.assign([Self.p0])
        let first = Self.batch(&state, [Self.record(Self.p0, 0)])
        let second = Self.batch(&state, [Self.record(Self.p0, 1)])
        #expect(Self.stored(&state, second.fence).isEmpty)
        state.progress.abandon(first.fence)
        #expect(!state.progress.hasInFlight([Self.p0]), "a durable batch stuck behind a gap counts as in flight")
        let third = Self.batch(&state, [Self.record(Self.p0, 2)])
        #expect(state.progress.complete(third.fence).refused == [Self.p0])
        #expect(!state.progress.isCaughtUp)
    }
}
