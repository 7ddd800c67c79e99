import Synchronization

extension KafkaConsumer {
    // MARK: - Batches and the fence

    /// Takes the next batch from the consumer's buffer (the only buffer between librdkafka and the app): waits up
    /// to `idleTimeout` for a first record, then collects records until there are `limit` of them or `window`
    /// passed since the first. Every record is claimed for the batch in its partition's current generation
    /// (records of an ended generation are dropped and counted); the batch stays in flight until it is completed
    /// (``complete(_:)``) or abandoned (``abandon(_:)``), and a revoke of its partitions waits for that (bounded by
    /// ``KafkaConsumerConfiguration/revokeWait``). Single reader: call it from one task at a time.
    public func nextBatch(upTo limit: Int, window: Duration, idleTimeout: Duration) async -> KafkaBatchNext {
        var fence = KafkaBatchFence(batchID: context.state.withLock { $0.progress.newBatch() }, claims: [:])
        var batch = KafkaBatch(messages: [], fence: fence, errors: [], staleRecordsDropped: 0)
        batch.messages.reserveCapacity(limit)
        var windowEnd: ContinuousClock.Instant?
        let idleEnd = ContinuousClock.now + idleTimeout
        while batch.messages.count < limit {
            let wait = max(.zero, (windowEnd ?? idleEnd) - .now)
            switch await context.take(upTo: limit - batch.messages.count, timeout: wait) {
            case .events(let events):
                // The per-record work happens outside the lock the poll thread takes for every record it buffers.
                var accounted = KafkaConsumerState.Accounted()
                let steps = KafkaConsumerState.steps(of: events, errors: &accounted.errors)
                let claimed = context.state.withLock { $0.claim(steps, into: &fence) }
                accounted.collect(events, steps, claimed)
                if windowEnd == nil && !accounted.messages.isEmpty { windowEnd = .now + window }
                batch.messages.append(contentsOf: accounted.messages)
                batch.errors += accounted.errors
                batch.staleRecordsDropped += accounted.dropped
                // Errors are handed out at once (a fatal one must not wait for the window).
                if !accounted.errors.isEmpty && batch.messages.isEmpty { return .batch(batch) }
            case .timedOut:
                if windowEnd != nil || ContinuousClock.now >= idleEnd { return finish(&batch, fence, or: .idle) }
            case .finished:
                return finish(&batch, fence, or: .finished)
            }
        }
        return finish(&batch, fence, or: .idle)
    }

    private func finish(_ batch: inout KafkaBatch, _ fence: KafkaBatchFence, or empty: KafkaBatchNext) -> KafkaBatchNext {
        batch.fence = fence
        return batch.messages.isEmpty && batch.errors.isEmpty && batch.staleRecordsDropped == 0 ? empty : .batch(batch)
    }

    /// Removes from `fence` the partitions revoked or lost since the batch was handed out (they are no longer in
    /// flight: a waiting revoke may go on). Remove their records from what the batch still has to write.
    /// - Returns: the removed partitions.
    public func retainCurrent(_ fence: inout KafkaBatchFence) -> Set<KafkaTopicPartition> {
        let removed = context.state.withLock { $0.progress.retainCurrent(&fence) }
        if !removed.isEmpty { context.wakeRevokeWaiter() }
        return removed
    }

    /// The batch is durable: stores (`offset + 1` of each partition's last record, via `rd_kafka_offsets_store`)
    /// the offsets of its partitions still in their claimed generation, once every earlier batch of the partition
    /// is complete too, and never past an abandoned batch. The check and the store happen under the lock the
    /// rebalance callback takes to end a generation, so they cannot interleave. Non-blocking.
    @discardableResult
    public func complete(_ fence: KafkaBatchFence) -> KafkaBatchCompletion {
        guard !fence.isEmpty else { return KafkaBatchCompletion() }
        let client = self.client
        let closed = client.isDestroyed
        let completion = context.state.withLock { state -> KafkaBatchCompletion in
            let (store, refused) = state.progress.complete(fence)
            var completion = KafkaBatchCompletion(refused: refused)
            guard !store.isEmpty else { return completion }
            if closed {
                completion.refused += store.map(\.topicPartition)
                return completion
            }
            completion.errors = client.storeOffsets(store)
            completion.stored = store.map(\.topicPartition).filter { completion.errors[$0] == nil }
            return completion
        }
        context.wakeRevokeWaiter()
        return completion
    }

    /// The batch will not become durable (a stop deadline passed, its store refused it for good): none of its
    /// offsets is stored, nor any later one of its partitions in their current generation.
    public func abandon(_ fence: KafkaBatchFence) {
        guard !fence.isEmpty else { return }
        context.state.withLock { $0.progress.abandon(fence) }
        context.wakeRevokeWaiter()
    }

    /// Whether any partition of `fence` is still in its claimed generation (false: the batch's work can no longer
    /// store an offset; retrying it is futile).
    public func holdsCurrentPartition(_ fence: KafkaBatchFence) -> Bool {
        context.state.withLock { $0.progress.holdsCurrentPartition(fence) }
    }

    /// True when partitions are assigned and each has reached its end (needs `enablePartitionEOF`), whether or not
    /// everything handed out is durable yet.
    public var allReachedEnd: Bool { context.state.withLock { $0.progress.allReachedEnd } }

    /// True when partitions are assigned, no batch is in flight, and each partition reached its end with every
    /// record handed out completed.
    public var isCaughtUp: Bool { context.state.withLock { $0.progress.isCaughtUp } }

    /// The partitions in a current generation, sorted (from the rebalance callbacks; never blocks).
    public var assignedPartitions: [KafkaTopicPartition] {
        context.state.withLock { $0.progress.assignedPartitions }.sorted()
    }

    /// True while fetching is paused by the app: ``pauseAll()`` or the configured pause condition (see
    /// ``init(configuration:pausedWhile:rebalanceHandler:logHandler:)``).
    public var isPausedByApp: Bool { context.state.withLock { $0.appPaused || $0.conditionPaused } }
}
