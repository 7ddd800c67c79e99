/// The consumer's buffer and pause state, shared by the poll thread and the app. Pure state machine: methods
/// return what the caller must do (resume a waiter, pause or resume fetching); the caller does it after
/// releasing the lock.
struct KafkaConsumerState {
    typealias Waiter = CheckedContinuation<KafkaConsumerEvent?, Never>

    /// Buffered events in arrival order; `head` is the next one to hand out.
    private var events: [KafkaConsumerEvent] = []
    private var head = 0
    private(set) var bufferedMessages = 0
    private var waiter: Waiter?
    /// The ``KafkaConsumer/events`` sequence ended (stop or close).
    private(set) var finished = false

    let maxBufferedMessages: Int
    var appPaused = false
    /// Whether the whole assignment is currently paused in librdkafka (only the poll thread changes it).
    private(set) var fetchPaused = false

    init(maxBufferedMessages: Int) {
        self.maxBufferedMessages = maxBufferedMessages
    }

    // MARK: - Delivery

    enum DeliverAction {
        case none
        case resume(Waiter, KafkaConsumerEvent)
    }

    /// Hands `event` to a waiting reader or buffers it (dropped after the sequence finished).
    mutating func deliver(_ event: KafkaConsumerEvent) -> DeliverAction {
        guard !finished else { return .none }
        if let waiter {
            self.waiter = nil
            return .resume(waiter, event)
        }
        events.append(event)
        if case .message = event { bufferedMessages += 1 }
        return .none
    }

    enum NextAction {
        case event(KafkaConsumerEvent)
        case end
        case wait
    }

    /// Takes the next buffered event, or records `waiter` to be resumed by ``deliver(_:)``.
    mutating func next(orWait waiter: Waiter) -> NextAction {
        if head < events.count {
            let event = events[head]
            head += 1
            if case .message = event { bufferedMessages -= 1 }
            compactIfNeeded()
            return .event(event)
        }
        if finished { return .end }
        self.waiter = waiter
        return .wait
    }

    /// Removes the waiter (task cancelled) so it can be resumed with `nil`.
    mutating func takeWaiter() -> Waiter? {
        defer { waiter = nil }
        return waiter
    }

    /// Drops buffered events of `partitions` (revoked: never delivered, never stored, so redelivered later).
    /// - Returns: the number of messages dropped.
    @discardableResult
    mutating func drop(partitions: Set<KafkaTopicPartition>) -> Int {
        guard !partitions.isEmpty else { return 0 }
        let before = bufferedMessages
        events = events[head...].filter { event in
            switch event {
            case .message(let message): !partitions.contains(message.topicPartition)
            case .partitionEOF(let topic, let partition, _):
                !partitions.contains(KafkaTopicPartition(topic: topic, partition: partition))
            case .error: true
            }
        }
        head = 0
        bufferedMessages = events.count { if case .message = $0 { true } else { false } }
        return before - bufferedMessages
    }

    /// Ends the sequence: drops everything buffered and returns the waiter to resume with `nil`.
    mutating func finish() -> Waiter? {
        finished = true
        events = []
        head = 0
        bufferedMessages = 0
        return takeWaiter()
    }

    // MARK: - Pausing

    /// Whether fetching should be paused now: app pause or stopped.
    var shouldPause: Bool { appPaused || finished }

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
