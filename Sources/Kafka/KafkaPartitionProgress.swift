/// The fence: per partition, its assignment generation and how far the app got — records handed out, batches in
/// flight, offsets durable, end of partition reached. Part of ``KafkaConsumerState`` (one lock, shared by the
/// poll thread's rebalance callbacks and the app's batches); pure, no C calls.
///
/// **Generations.** Every assignment of a partition starts a new generation; a record counts only while its
/// partition is still in the generation it was fetched in. A revoke first stops handing out records
/// (``beginRevoke(_:)``), lets the batches in flight store their offsets, and then ends the generation
/// (``endRevoke(_:)``); a lost assignment ends it at once.
///
/// **Batches.** A batch claims, per partition, its generation and the offset after its last record. Completing it
/// stores the offsets of every partition whose batches before it are complete too (several batches may be in
/// flight, e.g. one being written while the next is prepared, and they may finish in any order). Abandoning or
/// releasing it leaves a gap where it stands in its partition's queue: no offset past it is stored in that
/// generation, so its records are read again after a restart or a rebalance.
struct KafkaPartitionProgress {
    /// A batch's place in its partition's queue.
    private struct InFlight {
        enum State { case pending, durable, gap }
        var batchID: UInt64
        var nextOffset: Int64
        var state = State.pending
    }

    /// The current generation of every assigned partition; absent once its generation ended.
    private(set) var generations: [KafkaTopicPartition: UInt64] = [:]
    private var lastGeneration: UInt64 = 0
    /// Partitions inside a (non-lost) revoke: nothing more is handed out, offsets may still be stored.
    private var revoking: Set<KafkaTopicPartition> = []
    /// Next offset after the last record handed out, per partition (current generation).
    private var received: [KafkaTopicPartition: Int64] = [:]
    /// Next offset after the last durable record, per partition (current generation).
    private var durable: [KafkaTopicPartition: Int64] = [:]
    /// Partitions at their end since their last record handed out.
    private var atEnd: Set<KafkaTopicPartition> = []
    /// Batches per partition, in hand-out order: pending ones, durable ones waiting for an earlier one, and at the
    /// front at most one gap (an abandoned or released batch) that nothing after it may pass.
    private var inFlight: [KafkaTopicPartition: [InFlight]] = [:]
    private var lastBatchID: UInt64 = 0
    private(set) var everAssigned = false

    // MARK: - Generations

    /// Starts a new generation for `partitions`. - Returns: the generation their records will carry.
    mutating func assign(_ partitions: [KafkaTopicPartition]) -> UInt64 {
        lastGeneration += 1
        everAssigned = true
        for tp in partitions {
            forget(tp)
            generations[tp] = lastGeneration
        }
        return lastGeneration
    }

    /// A revoke begins: nothing more of `partitions` is handed out; batches in flight may still complete.
    mutating func beginRevoke(_ partitions: [KafkaTopicPartition]) {
        revoking.formUnion(partitions)
    }

    /// The partitions' generation ends (also alone, for a lost assignment).
    mutating func endRevoke(_ partitions: [KafkaTopicPartition]) {
        for tp in partitions { forget(tp) }
    }

    private mutating func forget(_ tp: KafkaTopicPartition) {
        generations[tp] = nil
        revoking.remove(tp)
        received[tp] = nil
        durable[tp] = nil
        atEnd.remove(tp)
        inFlight[tp] = nil
    }

    /// The generation records of `tp` are handed out in now; nil when not assigned or being revoked.
    func handOutGeneration(_ tp: KafkaTopicPartition) -> UInt64? {
        revoking.contains(tp) ? nil : generations[tp]
    }

    /// Whether `generation` is still the current one of `tp` (its offsets may be stored).
    func isCurrent(_ tp: KafkaTopicPartition, generation: UInt64) -> Bool {
        generation != 0 && generations[tp] == generation
    }

    var assignedPartitions: [KafkaTopicPartition] { Array(generations.keys) }

    // MARK: - Handing out

    /// A new batch's id.
    mutating func newBatch() -> UInt64 {
        lastBatchID += 1
        return lastBatchID
    }

    /// Claims a run of records of `tp`, fetched in `generation`, ending before `nextOffset`, for the batch of
    /// `fence`, if the partition is still in that generation and not being revoked.
    /// - Returns: false when the records must be dropped (their generation ended).
    mutating func claim(
        _ tp: KafkaTopicPartition, generation: UInt64, nextOffset next: Int64, in fence: inout KafkaBatchFence
    ) -> Bool {
        guard generation != 0, handOutGeneration(tp) == generation else { return false }
        received[tp] = max(received[tp] ?? next, next)
        atEnd.remove(tp)
        // In place: a copy of the queue would allocate once per run.
        if let last = inFlight[tp]?.indices.last, inFlight[tp]![last].batchID == fence.batchID {
            inFlight[tp]![last].nextOffset = max(inFlight[tp]![last].nextOffset, next)
        } else {
            inFlight[tp, default: []].append(InFlight(batchID: fence.batchID, nextOffset: next))
        }
        if let claim = fence.claims[tp], claim.generation == generation {
            fence.claims[tp]?.nextOffset = max(claim.nextOffset, next)
        } else {
            fence.claims[tp] = .init(generation: generation, nextOffset: next)
        }
        return true
    }

    /// The end of `tp` was seen at `nextOffset` in `generation`.
    mutating func reachedEnd(_ tp: KafkaTopicPartition, nextOffset: Int64, generation: UInt64) {
        guard isCurrent(tp, generation: generation) else { return }
        if let received = received[tp], received > nextOffset { return }
        atEnd.insert(tp)
    }

    // MARK: - Finishing batches

    /// Removes from `fence` the partitions no longer handed out in the claimed generation (revoking, revoked or
    /// lost); in their queues the batch becomes a gap. - Returns: the removed partitions.
    mutating func retainCurrent(_ fence: inout KafkaBatchFence) -> Set<KafkaTopicPartition> {
        var removed: Set<KafkaTopicPartition> = []
        for (tp, claim) in fence.claims where handOutGeneration(tp) != claim.generation {
            removed.insert(tp)
            settle(fence.batchID, of: tp, generation: claim.generation, as: .gap)
        }
        for tp in removed { fence.claims[tp] = nil }
        return removed
    }

    /// Marks the batch durable. - Returns: the offsets to store now (every partition whose batches up to this one
    /// are durable) and the partitions refused (generation ended, or a gap before the batch).
    mutating func complete(_ fence: KafkaBatchFence) -> (store: [KafkaTopicPartitionOffset], refused: [KafkaTopicPartition]) {
        var store: [KafkaTopicPartitionOffset] = []
        var refused: [KafkaTopicPartition] = []
        for (tp, claim) in fence.claims {
            guard let stored = settle(fence.batchID, of: tp, generation: claim.generation, as: .durable) else {
                refused.append(tp)
                continue
            }
            if let offset = stored {
                durable[tp] = max(durable[tp] ?? offset, offset)
                store.append(KafkaTopicPartitionOffset(topic: tp.topic, partition: tp.partition, offset: offset))
            }
        }
        return (store, refused)
    }

    /// The batch will not become durable: no offset past it is stored in its partitions' current generations (it
    /// would skip the batch's records).
    mutating func abandon(_ fence: KafkaBatchFence) {
        for (tp, claim) in fence.claims {
            settle(fence.batchID, of: tp, generation: claim.generation, as: .gap)
        }
    }

    /// Settles batch `batchID` in the queue of `tp` (if still in `generation`) and pops the durable batches at the
    /// queue's front. - Returns: nil when the batch's offset can never be stored (generation ended, or behind a
    /// gap); else the offset to store now, if the front moved.
    @discardableResult
    private mutating func settle(
        _ batchID: UInt64, of tp: KafkaTopicPartition, generation: UInt64, as state: InFlight.State
    ) -> Int64?? {
        guard isCurrent(tp, generation: generation), var queue = inFlight[tp],
            let index = queue.firstIndex(where: { $0.batchID == batchID })
        else { return nil }
        queue[index].state = state
        var stored: Int64?
        while let first = queue.first, first.state == .durable {
            stored = first.nextOffset
            queue.removeFirst()
        }
        let blocked = queue.first?.state == .gap
        if blocked {
            // Nothing behind a gap is ever stored in this generation: keep the gap and the pending batches only.
            queue = [queue[0]] + queue.dropFirst().filter { $0.state == .pending }
        }
        inFlight[tp] = queue.isEmpty ? nil : queue
        if state == .durable && blocked && stored == nil { return nil }
        return .some(stored)
    }

    // MARK: - Questions

    /// Whether any of `partitions` has a batch in flight (pending: neither durable nor given up).
    func hasInFlight(_ partitions: [KafkaTopicPartition]) -> Bool {
        partitions.contains { inFlight[$0]?.contains { $0.state == .pending } ?? false }
    }

    /// Whether any partition of `fence` is still handed out in the claimed generation (not revoking, revoked or
    /// lost): work on the batch can still count.
    func holdsCurrentPartition(_ fence: KafkaBatchFence) -> Bool {
        fence.claims.contains { handOutGeneration($0.key) == $0.value.generation }
    }

    /// True when partitions are assigned and each has reached its end (durable or not).
    var allReachedEnd: Bool {
        everAssigned && !generations.isEmpty && generations.keys.allSatisfy(atEnd.contains)
    }

    /// True when partitions are assigned, no batch is in flight, and each partition reached its end with
    /// everything handed out durable.
    var isCaughtUp: Bool {
        guard allReachedEnd, !hasInFlight(Array(generations.keys)) else { return false }
        return generations.keys.allSatisfy { tp in received[tp].map { (durable[tp] ?? -1) >= $0 } ?? true }
    }
}
