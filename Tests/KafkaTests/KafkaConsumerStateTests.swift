import Testing

@testable import Kafka

/// The consumer's one buffer and its generation fence, driven without a broker.
@Suite("Consumer state: generations")
struct KafkaConsumerStateTests {
    private static let p0 = KafkaTopicPartition(topic: "t", partition: 0)
    private static let p1 = KafkaTopicPartition(topic: "t", partition: 1)

    private static func record(_ tp: KafkaTopicPartition, _ offset: Int64) -> KafkaConsumerEvent {
        .record(tp, offset)
    }

    private static func take(_ state: inout KafkaConsumerState, upTo limit: Int = 100) -> [KafkaMessage] {
        state.take(upTo: limit).compactMap { if case .message(let m) = $0 { m } else { nil } }
    }

    @Test("lost → re-assigned: the buffer is cleared, the app's stale record is no longer current")
    func lostThenReassigned() {
        var state = KafkaConsumerState(maxBufferedMessages: 100)
        let first = state.assign([Self.p0, Self.p1])
        _ = state.deliver(Self.record(Self.p0, 10))
        _ = state.deliver(Self.record(Self.p0, 11))
        _ = state.deliver(Self.record(Self.p1, 7))
        let held = Self.take(&state, upTo: 1)  // the app holds offset 10 of p0
        #expect(held.map(\.assignmentGeneration) == [first])
        #expect(state.isCurrent(Self.p0, generation: first))

        // The assignment is lost (session timeout), then p0 comes back alone.
        #expect(state.endRevoke([Self.p0, Self.p1]) == 2, "buffered records of the lost partitions were kept")
        let second = state.assign([Self.p0])
        #expect(second > first)
        #expect(!state.isCurrent(Self.p0, generation: first), "a record of the lost assignment is still current")
        // The re-fetch restarts at the committed offset 5; a record of a partition not assigned is dropped.
        _ = state.deliver(Self.record(Self.p0, 5))
        _ = state.deliver(Self.record(Self.p1, 8))
        let refetched = Self.take(&state)
        #expect(refetched.map(\.offset) == [5])
        #expect(refetched.map(\.assignmentGeneration) == [second])
    }

    @Test("a revoke hands out nothing more but lets offsets of handed-out records be stored until it ends")
    func revokeInTwoSteps() {
        var state = KafkaConsumerState(maxBufferedMessages: 100)
        let generation = state.assign([Self.p0])
        _ = state.deliver(Self.record(Self.p0, 1))
        _ = state.deliver(Self.record(Self.p0, 2))
        _ = Self.take(&state, upTo: 1)
        #expect(state.beginRevoke([Self.p0]) == 1)
        _ = state.deliver(Self.record(Self.p0, 3))
        #expect(state.bufferedMessages == 0, "a record was buffered for a partition being revoked")
        #expect(state.isCurrent(Self.p0, generation: generation), "in-flight work could not store its offsets")
        state.endRevoke([Self.p0])
        #expect(!state.isCurrent(Self.p0, generation: generation))
    }

    @Test("end-of-partition events carry the generation; records after finish are dropped")
    func endOfPartitionAndFinish() {
        var state = KafkaConsumerState(maxBufferedMessages: 100)
        let generation = state.assign([Self.p0])
        _ = state.deliver(.partitionEOF(topic: "t", partition: 0, offset: 4, generation: 0))
        guard case .partitionEOF(_, _, 4, let stamped) = state.take(upTo: 10).first
        else {
            Issue.record("no end-of-partition event")
            return
        }
        #expect(stamped == generation)
        _ = state.finish()
        _ = state.deliver(Self.record(Self.p0, 9))
        #expect(state.bufferedMessages == 0)
    }
}

@Suite("Kafka message storage")
struct KafkaMessageStorageTests {
    private static func message() -> KafkaMessage {
        KafkaMessage(topic: "daily-values", partition: 3, offset: 42, key: Array("p-1".utf8), value: Array("{}".utf8),
                     headers: [KafkaHeader(key: "trace", string: "t1")], timestampMs: 7, timestampType: .createTime)
    }

    @Test("A copy written to is independent of the original; equal fields compare equal")
    func copyOnWrite() {
        let original = Self.message()
        var copy = original
        #expect(copy.sharesStorage(with: original))
        copy.offset = 43
        copy.value = Array("[]".utf8)
        #expect(!copy.sharesStorage(with: original))
        #expect(original.offset == 42 && original.value == Array("{}".utf8))
        #expect(copy.offset == 43 && copy.topic == "daily-values" && copy.key == Array("p-1".utf8))
        var again = copy
        again.offset = 42
        again.value = Array("{}".utf8)
        #expect(again == original && again.hashValue == original.hashValue)
        again.assignmentGeneration = 9
        #expect(again != original, "the generation is part of the value")
    }

    @Test("Stamping the generation on delivery does not copy the record's fields")
    func stampingSharesStorage() {
        var state = KafkaConsumerState(maxBufferedMessages: 10)
        let generation = state.assign([KafkaTopicPartition(topic: "daily-values", partition: 3)])
        let original = Self.message()
        _ = state.deliver(.message(original))
        let delivered = state.take(upTo: 10).compactMap { if case .message(let m) = $0 { m } else { nil } }
        #expect(delivered.map(\.assignmentGeneration) == [generation])
        #expect(delivered.first?.sharesStorage(with: original) == true)
    }
}
