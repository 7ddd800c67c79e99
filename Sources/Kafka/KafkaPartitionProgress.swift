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
/// flight, e.g. one being written while the next is prepared); abandoning it leaves a gap: no later offset of
/// that partition is stored in that generation, so the abandoned records are read again after a restart or a
/// rebalance.
struct KafkaPartitionProgress {
    private struct InFlight {
        var batchID: UInt64
        var nextOffset: Int64
        var durable = false
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
    /// Partitions with an abandoned batch in their current generation.
    private var gaps: Set<KafkaTopicPartition> = []
    /// Batches in flight per partition, in hand-out order.
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
        gaps.remove(tp)
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
        if var claims = inFlight[tp], let last = claims.indices.last, claims[last].batchID == fence.batchID {
            claims[last].nextOffset = max(claims[last].nextOffset, next)
            inFlight[tp] = claims
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

    /// Removes from `fence` (and from the batches in flight) the partitions no longer handed out in the claimed
    /// generation (revoking, revoked or lost). - Returns: the removed partitions.
    mutating func retainCurrent(_ fence: inout KafkaBatchFence) -> Set<KafkaTopicPartition> {
        var removed: Set<KafkaTopicPartition> = []
        for (tp, claim) in fence.claims where handOutGeneration(tp) != claim.generation {
            removed.insert(tp)
            release(fence.batchID, of: tp, generation: claim.generation)
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
            guard isCurrent(tp, generation: claim.generation), !gaps.contains(tp), var claims = inFlight[tp],
                let index = claims.firstIndex(where: { $0.batchID == fence.batchID })
            else {
                refused.append(tp)
                release(fence.batchID, of: tp, generation: claim.generation)
                continue
            }
            claims[index].durable = true
            var stored: Int64?
            while let first = claims.first, first.durable {
                stored = first.nextOffset
                claims.removeFirst()
            }
            inFlight[tp] = claims.isEmpty ? nil : claims
            if let stored {
                durable[tp] = max(durable[tp] ?? stored, stored)
                store.append(KafkaTopicPartitionOffset(topic: tp.topic, partition: tp.partition, offset: stored))
            }
        }
        return (store, refused)
    }

    /// The batch will not become durable: no later offset of its partitions is stored in their current
    /// generation (it would skip the batch's records).
    mutating func abandon(_ fence: KafkaBatchFence) {
        for (tp, claim) in fence.claims where isCurrent(tp, generation: claim.generation) {
            gaps.insert(tp)
            release(fence.batchID, of: tp, generation: claim.generation)
        }
    }

    private mutating func release(_ batchID: UInt64, of tp: KafkaTopicPartition, generation: UInt64) {
        guard isCurrent(tp, generation: generation), var claims = inFlight[tp] else { return }
        claims.removeAll { $0.batchID == batchID }
        inFlight[tp] = claims.isEmpty ? nil : claims
    }

    // MARK: - Questions

    /// Whether any of `partitions` has a batch in flight.
    func hasInFlight(_ partitions: [KafkaTopicPartition]) -> Bool {
        partitions.contains { inFlight[$0] != nil }
    }

    /// Whether any partition of `fence` is still in the claimed generation.
    func holdsCurrentPartition(_ fence: KafkaBatchFence) -> Bool {
        fence.claims.contains { isCurrent($0.key, generation: $0.value.generation) }
    }

    /// True when partitions are assigned and each has reached its end (durable or not).
    var allReachedEnd: Bool {
        everAssigned && !generations.isEmpty && generations.keys.allSatisfy(atEnd.contains)
    }

    /// True when partitions are assigned, no batch is in flight, and each partition reached its end with
    /// everything handed out durable.
    var isCaughtUp: Bool {
        guard allReachedEnd, inFlight.isEmpty else { return false }
        return generations.keys.allSatisfy { tp in received[tp].map { (durable[tp] ?? -1) >= $0 } ?? true }
    }
}
