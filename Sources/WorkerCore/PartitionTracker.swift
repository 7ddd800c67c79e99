import Foundation
import Kafka
import Synchronization

/// What the worker knows about its partitions, shared between the consumer's poll thread (rebalance callbacks)
/// and the batching loop.
///
/// The rule it enforces: a revoke waits (bounded) for the batch in flight, so that batch's offsets are stored
/// before the consumer commits and hands the partitions over; messages of a revoked partition that were not yet in
/// flight are dropped (they were never stored, the next owner re-reads them).
final class PartitionTracker: Sendable {
    private struct State {
        var assigned: Set<KafkaTopicPartition> = []
        /// Bumped on every revoke; a message is processed only if its partition's epoch did not change.
        var epochs: [KafkaTopicPartition: Int] = [:]
        /// Next offset after the last message received per partition.
        var received: [KafkaTopicPartition: Int64] = [:]
        /// Next offset after the last durable (stored) message per partition.
        var durable: [KafkaTopicPartition: Int64] = [:]
        /// Partitions at end-of-partition since their last received message.
        var atEnd: Set<KafkaTopicPartition> = []
        var batchInFlight = false
        var everAssigned = false
    }

    private let state = Mutex(State())
    private let idle = NSCondition()

    // MARK: - Rebalance side (poll thread)

    func assign(_ partitions: [KafkaTopicPartition]) {
        state.withLock { s in
            s.everAssigned = true
            for tp in partitions {
                s.assigned.insert(tp)
                s.epochs[tp, default: 0] += 1
                s.atEnd.remove(tp)
                s.received[tp] = nil
                s.durable[tp] = nil
            }
        }
    }

    /// Marks `partitions` as leaving, then waits up to `timeout` for the batch in flight to become durable.
    /// - Returns: false when the in-flight batch did not finish in time (its offsets will not be committed).
    @discardableResult
    func revoke(_ partitions: [KafkaTopicPartition], waitingAtMost timeout: Duration) -> Bool {
        state.withLock { s in
            for tp in partitions { s.epochs[tp, default: 0] += 1 }
        }
        let deadline = Date(timeIntervalSinceNow: timeout.seconds)
        idle.lock()
        var finished = true
        while state.withLock({ $0.batchInFlight }) {
            if !idle.wait(until: deadline) {
                finished = !state.withLock { $0.batchInFlight }
                break
            }
        }
        idle.unlock()
        state.withLock { s in
            for tp in partitions {
                s.assigned.remove(tp)
                s.atEnd.remove(tp)
                s.received[tp] = nil
                s.durable[tp] = nil
            }
        }
        return finished
    }

    // MARK: - Batching side

    /// The epoch a message received now belongs to, or nil when its partition is not assigned (drop it).
    func accept(_ message: KafkaMessage) -> Int? {
        state.withLock { s in
            let tp = message.topicPartition
            guard s.assigned.contains(tp) else { return nil }
            s.received[tp] = message.offset + 1
            s.atEnd.remove(tp)
            return s.epochs[tp] ?? 0
        }
    }

    func isCurrent(_ tp: KafkaTopicPartition, epoch: Int) -> Bool {
        state.withLock { $0.assigned.contains(tp) && $0.epochs[tp] == epoch }
    }

    func reachedEnd(_ tp: KafkaTopicPartition, nextOffset: Int64) {
        state.withLock { s in
            guard s.assigned.contains(tp) else { return }
            if let received = s.received[tp], received > nextOffset { return }
            s.atEnd.insert(tp)
        }
    }

    func beginBatch() { state.withLock { $0.batchInFlight = true } }

    /// Records the offsets just stored and wakes a waiting revoke.
    func endBatch(durable offsets: [KafkaTopicPartitionOffset]) {
        state.withLock { s in
            s.batchInFlight = false
            for o in offsets where s.assigned.contains(o.topicPartition) {
                s.durable[o.topicPartition] = max(s.durable[o.topicPartition] ?? 0, o.offset)
            }
        }
        idle.lock()
        idle.broadcast()
        idle.unlock()
    }

    var assignedPartitions: [KafkaTopicPartition] { state.withLock { $0.assigned.sorted() } }

    /// True when partitions are assigned and each has reached its end (whether or not all of it is durable yet).
    var allReachedEnd: Bool {
        state.withLock { s in s.everAssigned && !s.assigned.isEmpty && s.assigned.isSubset(of: s.atEnd) }
    }

    /// True when partitions are assigned and each has reached its end with everything received made durable.
    var isCaughtUp: Bool {
        state.withLock { s in
            guard s.everAssigned, !s.assigned.isEmpty, !s.batchInFlight else { return false }
            return s.assigned.allSatisfy { tp in
                s.atEnd.contains(tp) && (s.received[tp].map { (s.durable[tp] ?? -1) >= $0 } ?? true)
            }
        }
    }
}

extension Duration {
    /// The duration in seconds as a `Double`.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
