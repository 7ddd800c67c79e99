/// The consumer's one buffer of records, its assignment generations and its pause state, shared by the poll thread
/// and the app. Pure state machine: methods return what the caller must do (resume a waiter, pause or resume
/// fetching); the caller does it after releasing the lock.
///
/// **Generations.** Every assign callback starts a new assignment generation; each record is stamped on the poll
/// thread with the generation its partition had when the record was fetched. A revoke ends the partition's
/// generation and drops its buffered events here, the only buffer between librdkafka and the app. Offsets are
/// stored only for records whose generation is still current (``isCurrent(_:generation:)``), so a record fetched
/// before a partition was lost can never move the offsets of a later assignment of the same partition.
struct KafkaConsumerState {
    typealias Waiter = CheckedContinuation<[KafkaConsumerEvent], Never>

    /// Buffered events in arrival order; `head` is the next one to hand out.
    private var events: [KafkaConsumerEvent] = []
    private var head = 0
    private(set) var bufferedMessages = 0
    private var waiter: Waiter?
    /// Identifies the current waiter, so that a timer meant for an earlier one does not wake it.
    private(set) var waiterID = 0
    /// The ``KafkaConsumer/events`` sequence ended (stop or close).
    private(set) var finished = false

    /// Generations, batches in flight and durable offsets: the fence (see ``KafkaPartitionProgress``).
    var progress = KafkaPartitionProgress()

    let maxBufferedMessages: Int
    var appPaused = false
    /// The app's pause condition held at the poll thread's last look (see ``RDKafkaConsumerContext``).
    var conditionPaused = false
    /// Whether the whole assignment is currently paused in librdkafka (only the poll thread changes it).
    private(set) var fetchPaused = false

    init(maxBufferedMessages: Int) {
        self.maxBufferedMessages = maxBufferedMessages
    }

    // MARK: - Generations

    /// Starts a new generation for `partitions` (assign callback or manual assignment).
    /// - Returns: the generation their records will carry.
    mutating func assign(_ partitions: [KafkaTopicPartition]) -> UInt64 {
        progress.assign(partitions)
    }

    /// A revoke begins: buffered events of `partitions` are dropped and no more are handed out; offsets of records
    /// already handed out can still be stored (the app finishes its in-flight work) until ``endRevoke(_:)``.
    /// - Returns: the number of records dropped.
    @discardableResult
    mutating func beginRevoke(_ partitions: [KafkaTopicPartition]) -> Int {
        progress.beginRevoke(partitions)
        return drop(partitions: Set(partitions))
    }

    /// The partitions' generation ends: their records are stale from now on (also used alone for a lost assignment).
    /// - Returns: the number of records dropped.
    @discardableResult
    mutating func endRevoke(_ partitions: [KafkaTopicPartition]) -> Int {
        progress.endRevoke(partitions)
        return drop(partitions: Set(partitions))
    }

    /// Every partition with a generation (for a full unassign).
    var assignedPartitions: [KafkaTopicPartition] { progress.assignedPartitions }

    /// Whether `generation` is still the current one of `partition` (its offsets may be stored).
    func isCurrent(_ partition: KafkaTopicPartition, generation: UInt64) -> Bool {
        progress.isCurrent(partition, generation: generation)
    }

    // MARK: - Delivery

    enum DeliverAction {
        case none
        case resume(Waiter, KafkaConsumerEvent)
    }

    /// Stamps a record or end-of-partition event with its partition's current generation and hands it to a waiting
    /// reader or buffers it. Events of partitions without a current generation (not assigned, or being revoked) and
    /// events after the sequence finished are dropped.
    mutating func deliver(_ event: KafkaConsumerEvent) -> DeliverAction {
        guard !finished, let event = stamped(event) else { return .none }
        if let waiter {
            self.waiter = nil
            return .resume(waiter, event)
        }
        events.append(event)
        if case .message = event { bufferedMessages += 1 }
        return .none
    }

    private func stamped(_ event: KafkaConsumerEvent) -> KafkaConsumerEvent? {
        switch event {
        case .message(var message):
            guard let generation = current(message.topicPartition) else { return nil }
            message.assignmentGeneration = generation
            return .message(message)
        case .partitionEOF(let topic, let partition, let offset, _):
            guard let generation = current(KafkaTopicPartition(topic: topic, partition: partition)) else { return nil }
            return .partitionEOF(topic: topic, partition: partition, offset: offset, generation: generation)
        case .error:
            return event
        }
    }

    private func current(_ tp: KafkaTopicPartition) -> UInt64? {
        progress.handOutGeneration(tp)
    }

    enum NextAction {
        case events([KafkaConsumerEvent])
        case end
        case wait(id: Int)
    }

    /// Takes up to `limit` buffered events, or records `waiter` to be resumed by ``deliver(_:)`` (or by a timer
    /// through ``takeWaiter(id:)``).
    mutating func next(upTo limit: Int, orWait waiter: Waiter) -> NextAction {
        let taken = take(upTo: limit)
        if !taken.isEmpty { return .events(taken) }
        if finished { return .end }
        waiterID += 1
        self.waiter = waiter
        return .wait(id: waiterID)
    }

    /// Takes up to `limit` buffered events (none when the buffer is empty).
    mutating func take(upTo limit: Int) -> [KafkaConsumerEvent] {
        guard head < events.count else { return [] }
        let end = min(events.count, head + max(1, limit))
        let taken = Array(events[head..<end])
        head = end
        bufferedMessages -= taken.count { if case .message = $0 { true } else { false } }
        compactIfNeeded()
        return taken
    }

    /// Removes the waiter (task cancelled) so it can be resumed empty.
    mutating func takeWaiter() -> Waiter? {
        defer { waiter = nil }
        return waiter
    }

    /// Removes the waiter only if it is still the one registered as `id` (a timeout).
    mutating func takeWaiter(id: Int) -> Waiter? {
        guard id == waiterID else { return nil }
        return takeWaiter()
    }

    /// Drops buffered events of `partitions` (revoked: never delivered, never stored, so redelivered later).
    private mutating func drop(partitions: Set<KafkaTopicPartition>) -> Int {
        guard !partitions.isEmpty else { return 0 }
        let before = bufferedMessages
        events = events[head...].filter { event in
            switch event {
            case .message(let message): !partitions.contains(message.topicPartition)
            case .partitionEOF(let topic, let partition, _, _):
                !partitions.contains(KafkaTopicPartition(topic: topic, partition: partition))
            case .error: true
            }
        }
        head = 0
        bufferedMessages = events.count { if case .message = $0 { true } else { false } }
        return before - bufferedMessages
    }

    /// Ends the sequence: drops everything buffered and returns the waiter to resume empty.
    mutating func finish() -> Waiter? {
        finished = true
        events = []
        head = 0
        bufferedMessages = 0
        return takeWaiter()
    }

    // MARK: - Pausing

    /// Whether fetching should be paused now: app pause, the app's pause condition, or stopped.
    var shouldPause: Bool { appPaused || conditionPaused || finished }

    /// Whether the buffer holds ``maxBufferedMessages`` records: the poll thread holds back (flow control).
    var isFull: Bool { bufferedMessages >= maxBufferedMessages }

    /// Returns the pause change to apply to the whole assignment, if any: `true` pause, `false` resume.
    mutating func pauseChange() -> Bool? {
        let desired = shouldPause
        guard desired != fetchPaused else { return nil }
        fetchPaused = desired
        return desired
    }

    private mutating func compactIfNeeded() {
        if head == events.count {
            events.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 1024, head * 2 > events.count {
            events.removeFirst(head)
            head = 0
        }
    }
}
