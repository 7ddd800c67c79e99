import Foundation
import Kafka
import Synchronization
import TestSupport
import Testing

@testable import WorkerCore

/// The worker's side of the generation fence: a record counts only while its partition is in the assignment
/// generation it was fetched in. (Before the fence, `PartitionTracker.accept` stamped a record with the epoch at
/// the time the batch loop received it, so a record fetched before a lost assignment counted as current after the
/// re-assignment: commit 7fa7507 holds that failing test.)
@Suite("Generation fence (worker)")
struct GenerationFenceTests {
    private static let p0 = KafkaTopicPartition(topic: "daily-values", partition: 0)
    private static let p1 = KafkaTopicPartition(topic: "daily-values", partition: 1)

    private static func record(_ tp: KafkaTopicPartition = p0, offset: Int64, generation: UInt64) -> KafkaMessage {
        var message = KafkaMessage(
            topic: tp.topic, partition: tp.partition, offset: offset, key: nil, value: Array("{}".utf8), headers: [],
            timestampMs: nil, timestampType: .notAvailable)
        message.assignmentGeneration = generation
        return message
    }

    @Test("lost → re-assigned: a record fetched under the old assignment is not accepted, nor counted durable")
    func lostThenReassigned() {
        let tracker = PartitionTracker()
        tracker.assign([Self.p0], generation: 1)
        let stale = Self.record(offset: 10, generation: 1)
        // All brokers down past the session timeout: the assignment is lost, then the same partition comes back.
        #expect(tracker.revoke([Self.p0], lost: true, waitingAtMost: .seconds(5)))
        tracker.assign([Self.p0], generation: 2)
        #expect(tracker.accept([stale]).isEmpty, "a record of the lost assignment was accepted as current")
        #expect(!tracker.isCurrent(stale))
        // The re-fetch restarts at the committed offset 5: only records of generation 2 count.
        let refetched = Self.record(offset: 5, generation: 2)
        #expect(tracker.accept([refetched]).map(\.offset) == [5])
        tracker.reachedEnd(Self.p0, nextOffset: 6, generation: 2)
        tracker.beginBatch()
        tracker.endBatch(durable: [stale])
        #expect(!tracker.isCaughtUp, "offset 11 of the lost generation counted as durable for generation 2")
        tracker.beginBatch()
        tracker.endBatch(durable: [refetched])
        #expect(tracker.isCaughtUp)
    }

    @Test("records accepted in runs: only an ended generation's are dropped, each partition's last offset counts")
    func acceptsRunsOfPartitions() {
        let tracker = PartitionTracker()
        tracker.assign([Self.p0, Self.p1], generation: 1)
        tracker.revoke([Self.p1], lost: true, waitingAtMost: .zero)
        tracker.assign([Self.p1], generation: 2)
        let records = [
            Self.record(offset: 1, generation: 1), Self.record(offset: 2, generation: 1),
            Self.record(Self.p1, offset: 3, generation: 1), Self.record(Self.p1, offset: 4, generation: 2),
            Self.record(offset: 5, generation: 1),
        ]
        let accepted = tracker.accept(records)
        #expect(accepted.map(\.offset) == [1, 2, 4, 5])
        #expect(tracker.current(records).map(\.offset) == [1, 2, 4, 5])
        #expect(!tracker.areCurrent(records) && tracker.areCurrent(accepted))
        tracker.reachedEnd(Self.p0, nextOffset: 6, generation: 1)
        tracker.reachedEnd(Self.p1, nextOffset: 5, generation: 2)
        tracker.beginBatch()
        tracker.endBatch(durable: [records[1], records[3]])
        #expect(!tracker.isCaughtUp, "partition 0 counted as received up to offset 2, not 5")
        tracker.beginBatch()
        tracker.endBatch(durable: [records[4]])
        #expect(tracker.isCaughtUp)
    }

    @Test("after an abandoned batch, later records of the partition's generation store no offset")
    func abandonedBatchLeavesAGap() {
        let tracker = PartitionTracker()
        tracker.assign([Self.p0, Self.p1], generation: 1)
        tracker.abandon([Self.record(offset: 9, generation: 1)])
        let later = [Self.record(offset: 19, generation: 1), Self.record(Self.p1, offset: 4, generation: 1)]
        #expect(tracker.storable(later).map(\.topicPartition) == [Self.p1])
        tracker.revoke([Self.p0], lost: true, waitingAtMost: .zero)
        tracker.assign([Self.p0], generation: 2)
        #expect(tracker.storable([Self.record(offset: 5, generation: 2)]).count == 1, "the gap outlived its generation")
    }

    @Test("an end-of-partition seen in an ended generation does not count")
    func staleEndOfPartition() {
        let tracker = PartitionTracker()
        tracker.assign([Self.p0], generation: 1)
        tracker.revoke([Self.p0], lost: true, waitingAtMost: .zero)
        tracker.assign([Self.p0], generation: 2)
        tracker.reachedEnd(Self.p0, nextOffset: 100, generation: 1)
        #expect(!tracker.allReachedEnd)
        tracker.reachedEnd(Self.p0, nextOffset: 40, generation: 2)
        #expect(tracker.allReachedEnd)
    }

    @Test("a revoke waits for the batch in flight, a lost assignment does not")
    func revokeWaitsForInFlight() async {
        let tracker = PartitionTracker()
        tracker.assign([Self.p0, Self.p1], generation: 1)
        tracker.beginBatch()
        let started = ContinuousClock.now
        #expect(!tracker.revoke([Self.p1], lost: true, waitingAtMost: .seconds(5)))
        #expect(ContinuousClock.now - started < .seconds(4), "a lost assignment waited for the batch (5 s)")
        // The revoke blocks its thread (in the worker: librdkafka's poll thread, inside the rebalance callback) and
        // the batch ends on another; both get threads of their own, so a busy cooperative pool cannot starve either.
        let currentWhileWaiting = Mutex<Bool?>(nil)
        let finisher = Thread {
            Thread.sleep(forTimeInterval: 0.3)
            // Still current while the revoke waits: the batch may store its offsets.
            currentWhileWaiting.withLock { $0 = tracker.isCurrent(Self.record(offset: 3, generation: 1)) }
            tracker.endBatch(durable: [Self.record(offset: 3, generation: 1)])
        }
        finisher.start()
        let (revoked, batchEndedFirst) = await onThread {
            let revoked = tracker.revoke([Self.p0], lost: false, waitingAtMost: .seconds(5))
            return (revoked, currentWhileWaiting.withLock { $0 } != nil)
        }
        #expect(revoked)
        #expect(batchEndedFirst, "the revoke returned before the batch in flight ended")
        #expect(
            currentWhileWaiting.withLock { $0 } == true,
            "the revoking partition stopped being current before its batch finished")
        #expect(!tracker.isCurrent(Self.record(offset: 3, generation: 1)))
        #expect(tracker.assignedPartitions.isEmpty)
    }
}
