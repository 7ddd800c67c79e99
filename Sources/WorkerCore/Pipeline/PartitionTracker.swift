import Essentials
import Foundation
import Kafka
import Synchronization

/// What the worker knows about its partitions, shared between the consumer's poll thread (rebalance callbacks)
/// and the batching loop.
///
/// It mirrors the consumer's assignment generations (``KafkaMessage/assignmentGeneration``): a record counts only
/// while its partition is still in the generation it was fetched in. A revoke waits (bounded) for the batch in
/// flight, so that batch's offsets are stored before the consumer commits and hands the partitions over; a lost
/// assignment does not wait (its offsets can no longer be stored). The consumer itself drops the buffered records
/// of revoked partitions and refuses to store offsets of records of an ended generation.
final class PartitionTracker: Sendable {
    private struct State {
        /// The current assignment generation of every assigned partition.
        var generations: [KafkaTopicPartition: UInt64] = [:]
        /// Next offset after the last message received per partition.
        var received: [KafkaTopicPartition: Int64] = [:]
        /// Next offset after the last durable (stored) message per partition.
        var durable: [KafkaTopicPartition: Int64] = [:]
        /// Partitions at end-of-partition since their last received message.
        var atEnd: Set<KafkaTopicPartition> = []
        /// Partitions (in a generation) with an abandoned batch: no later offset of theirs may be stored in that
        /// generation, or it would skip the abandoned records.
        var gaps: Set<PartitionGeneration> = []
        var batchInFlight = false
        var everAssigned = false

        var assigned: Dictionary<KafkaTopicPartition, UInt64>.Keys { generations.keys }

        mutating func markReceived(_ tp: KafkaTopicPartition, next: Int64) {
            received[tp] = next
            atEnd.remove(tp)
        }

        mutating func forget(_ tp: KafkaTopicPartition) {
            generations[tp] = nil
            atEnd.remove(tp)
            received[tp] = nil
            durable[tp] = nil
        }
    }

    private struct PartitionGeneration: Hashable {
        var partition: KafkaTopicPartition
        var generation: UInt64
    }

    /// A partition's generation for a sequence of records: one lookup per run of records of one partition (records
    /// arrive in runs), not one per record.
    private struct GenerationLookup {
        private var last: (topic: String, partition: Int32, generation: UInt64?)?

        mutating func generation(
            of message: KafkaMessage, in generations: [KafkaTopicPartition: UInt64]
        ) -> UInt64? {
            if let last, last.partition == message.partition, last.topic == message.topic { return last.generation }
            let generation = generations[message.topicPartition]
            last = (message.topic, message.partition, generation)
            return generation
        }
    }

    private let state = Mutex(State())
    private let idle = NSCondition()

    // MARK: - Rebalance side (poll thread)

    /// `partitions` start a new assignment `generation` (from ``KafkaRebalanceEvent/assigned(_:generation:)``).
    func assign(_ partitions: [KafkaTopicPartition], generation: UInt64) {
        state.withLock { s in
            s.everAssigned = true
            for tp in partitions {
                s.forget(tp)
                s.generations[tp] = generation
            }
        }
    }

    /// `partitions` are leaving. Unless `lost`, waits up to `timeout` for the batch in flight to become durable and
    /// store its offsets (the consumer commits them right after); then forgets the partitions.
    /// - Returns: false when the in-flight batch did not finish in time (its offsets will not be committed).
    @discardableResult
    func revoke(_ partitions: [KafkaTopicPartition], lost: Bool, waitingAtMost timeout: Duration) -> Bool {
        if lost { state.withLock { s in partitions.forEach { s.forget($0) } } }
        let deadline = Date(timeIntervalSinceNow: lost ? 0 : timeout.seconds)
        idle.lock()
        var finished = true
        while state.withLock({ $0.batchInFlight }) {
            if !idle.wait(until: deadline) {
                finished = !state.withLock { $0.batchInFlight }
                break
            }
        }
        idle.unlock()
        state.withLock { s in partitions.forEach { s.forget($0) } }
        return finished
    }

    // MARK: - Batching side

    /// Records `messages` (in order) as received, those whose partition is still in the message's generation.
    /// - Returns: the accepted messages; the others belong to an ended generation (drop them: the partition's next
    ///   owner re-reads them).
    func accept(_ messages: [KafkaMessage]) -> [KafkaMessage] {
        state.withLock { s in
            var lookup = GenerationLookup()
            var accepted: [KafkaMessage] = []
            accepted.reserveCapacity(messages.count)
            // The next offset of the run of accepted records of one partition, written when the partition changes.
            var received: (tp: KafkaTopicPartition, next: Int64)?
            for message in messages {
                guard lookup.generation(of: message, in: s.generations) == message.assignmentGeneration else { continue }
                if let run = received, run.tp.partition != message.partition || run.tp.topic != message.topic {
                    s.markReceived(run.tp, next: run.next)
                    received = nil
                }
                received = (received?.tp ?? message.topicPartition, message.offset + 1)
                accepted.append(message)
            }
            if let run = received { s.markReceived(run.tp, next: run.next) }
            return accepted
        }
    }

    /// Whether `generation` is still the current one of `tp`.
    func isCurrent(_ tp: KafkaTopicPartition, generation: UInt64) -> Bool {
        state.withLock { $0.generations[tp] == generation }
    }

    /// Whether `message` still belongs to its partition's current generation.
    func isCurrent(_ message: KafkaMessage) -> Bool {
        isCurrent(message.topicPartition, generation: message.assignmentGeneration)
    }

    /// The messages of `messages` that still belong to their partition's current generation.
    func current(_ messages: [KafkaMessage]) -> [KafkaMessage] {
        state.withLock { s in
            var lookup = GenerationLookup()
            return messages.filter { lookup.generation(of: $0, in: s.generations) == $0.assignmentGeneration }
        }
    }

    /// Whether every one of `messages` still belongs to its partition's current generation.
    func areCurrent(_ messages: [KafkaMessage]) -> Bool {
        state.withLock { s in
            var lookup = GenerationLookup()
            return messages.allSatisfy { lookup.generation(of: $0, in: s.generations) == $0.assignmentGeneration }
        }
    }

    /// The consumer saw the end of `tp` at `nextOffset` in `generation`.
    func reachedEnd(_ tp: KafkaTopicPartition, nextOffset: Int64, generation: UInt64) {
        state.withLock { s in
            guard s.generations[tp] == generation else { return }
            if let received = s.received[tp], received > nextOffset { return }
            s.atEnd.insert(tp)
        }
    }

    func beginBatch() { state.withLock { $0.batchInFlight = true } }

    /// A batch was abandoned before it was durable (the stop deadline passed): its partitions' later records of the
    /// same generation may still be processed, but their offsets must not be stored (they would skip these).
    func abandon(_ records: [KafkaMessage]) {
        state.withLock { s in
            for record in records {
                s.gaps.insert(PartitionGeneration(partition: record.topicPartition, generation: record.assignmentGeneration))
            }
        }
    }

    /// The records whose offsets may be stored: those without an abandoned batch before them in their generation.
    func storable(_ records: [KafkaMessage]) -> [KafkaMessage] {
        state.withLock { s in
            records.filter {
                !s.gaps.contains(PartitionGeneration(partition: $0.topicPartition, generation: $0.assignmentGeneration))
            }
        }
    }

    /// Records the last records whose offsets were just stored (of the current generation only) and wakes a
    /// waiting revoke.
    func endBatch(durable records: [KafkaMessage]) {
        state.withLock { s in
            s.batchInFlight = false
            for record in records where s.generations[record.topicPartition] == record.assignmentGeneration {
                s.durable[record.topicPartition] = max(s.durable[record.topicPartition] ?? 0, record.offset + 1)
            }
        }
        idle.lock()
        idle.broadcast()
        idle.unlock()
    }

    var assignedPartitions: [KafkaTopicPartition] { state.withLock { $0.assigned.sorted() } }

    /// True when partitions are assigned and each has reached its end (whether or not all of it is durable yet).
    var allReachedEnd: Bool {
        state.withLock { s in s.everAssigned && !s.assigned.isEmpty && s.assigned.allSatisfy(s.atEnd.contains) }
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
