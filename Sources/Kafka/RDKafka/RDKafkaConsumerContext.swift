import CKafka
import Dispatch
import Essentials
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The consumer's callback context and poll-loop logic. Every librdkafka callback except `log_cb` runs on the
/// thread calling `rd_kafka_consumer_poll` (the poll thread) or `rd_kafka_consumer_close` (the close thread).
/// Lifetime: registered unretained as the client's opaque; ``RDKafkaClient`` keeps it alive (see there).
final class RDKafkaConsumerContext: Sendable {
    let state: Mutex<KafkaConsumerState>
    /// What closing needs to know (see there); replaced by ``KafkaConsumer`` with the configured strategy.
    let closeState = Mutex(KafkaConsumerCloseState(assignmentStrategy: ""))
    private let statistics = Mutex<[KafkaTopicPartition: KafkaPartitionStatistics]>([:])
    private let brokers = Mutex<KafkaBrokerAvailability?>(nil)
    let rebalanceHandler: @Sendable (KafkaRebalanceEvent) -> Void
    /// The app's pause condition, read by the poll thread before each poll (see ``KafkaConsumer``'s init).
    let pausedWhile: (@Sendable () -> Bool)?
    let revokeWait: Duration
    /// Ends a revoke's wait for the batches in flight when one of them completed, was abandoned or released.
    let inFlightChanged = DispatchSemaphore(value: 0)
    /// Whether a revoke is (about to be) waiting on ``inFlightChanged``; whoever clears it signals.
    let revokeWaiting = Atomic(false)
    let logHandler: (@Sendable (KafkaLogEntry) -> Void)?
    let startTimestampMs: Int64?
    /// When the poll thread's current hold of a full buffer began, in uptime nanoseconds; 0 when not holding (only
    /// the poll thread touches it).
    private let holdStartedNs = Atomic<UInt64>(0)
    /// The longest a full buffer holds the poll back.
    static let maxHold = Duration.milliseconds(100)
    /// Ends a hold at once when the app took events or changed what the poll thread does (see ``pollOnce(_:)``).
    private let wakeUp = DispatchSemaphore(value: 0)
    /// Whether the poll thread is (about to be) waiting on ``wakeUp``; whoever clears it signals.
    private let pollHolding = Atomic(false)

    init(
        maxBufferedMessages: Int,
        rebalanceHandler: @escaping @Sendable (KafkaRebalanceEvent) -> Void,
        logHandler: (@Sendable (KafkaLogEntry) -> Void)?,
        startTimestampMs: Int64? = nil,
        pausedWhile: (@Sendable () -> Bool)? = nil,
        revokeWait: Duration = .seconds(10)
    ) {
        state = Mutex(KafkaConsumerState(maxBufferedMessages: maxBufferedMessages))
        self.rebalanceHandler = rebalanceHandler
        self.pausedWhile = pausedWhile
        self.revokeWait = revokeWait
        self.logHandler = logHandler
        self.startTimestampMs = startTimestampMs
    }

    // MARK: - Poll loop

    /// One iteration of the poll thread: apply pause changes, poll, buffer what arrived. While paused the poll
    /// is short (10 ms) so fetching resumes soon after the app drained the buffer.
    ///
    /// Flow control holds the poll back instead of pausing: librdkafka's pause bumps the partitions' op version,
    /// which discards every pre-fetched record, and the resume fetches them all again. While the buffer is full the
    /// thread waits until the app takes events (``wakePollThread()``, no timer wake-ups), and polls at least every
    /// ``maxHold`` (one record over the limit at most), so rebalances and `max.poll.interval.ms` stay served.
    /// librdkafka's own pre-fetch limits bound the rest.
    func pollOnce(_ client: RDKafkaClient) {
        pollOnce(client.handle)
    }

    private func pollOnce(_ rk: OpaquePointer) {
        let conditionPaused = pausedWhile?() ?? false
        let (change, paused, full) = state.withLock { state in
            state.conditionPaused = conditionPaused
            return (state.pauseChange(), state.fetchPaused, state.isFull)
        }
        if let change { setPaused(change, rk: rk) }
        if full && !paused {
            let now = DispatchTime.now().uptimeNanoseconds
            var started = holdStartedNs.load(ordering: .relaxed)
            if started == 0 {
                started = now
                holdStartedNs.store(now, ordering: .relaxed)
            }
            let deadline = started + UInt64(Self.maxHold.nanoseconds)
            if now < deadline {
                waitForRoom(until: DispatchTime(uptimeNanoseconds: deadline))
                return
            }
        }
        holdStartedNs.store(0, ordering: .relaxed)
        guard let message = rd_kafka_consumer_poll(rk, paused ? 10 : 100) else { return }
        defer { rd_kafka_message_destroy(message) }
        let raw = message.pointee
        switch raw.err {
        case RD_KAFKA_RESP_ERR_NO_ERROR:
            deliver(.message(RDKafkaMessage.message(message)))
        case RD_KAFKA_RESP_ERR__PARTITION_EOF:
            deliver(
                .partitionEOF(
                    topic: RDKafkaMessage.topicName(message), partition: raw.partition,
                    offset: raw.offset, generation: 0))
        default:
            deliver(.error(RDKafkaMessage.consumerError(message)))
        }
    }

    /// Waits until `deadline` (a monotonic clock) for the app to take events while the buffer is full. The flag is
    /// raised before the buffer is checked, and a taker clears it before signalling, so a take between the check
    /// and the wait leaves its signal in the semaphore (at most one stale signal: one extra loop iteration).
    private func waitForRoom(until deadline: DispatchTime) {
        pollHolding.store(true, ordering: .sequentiallyConsistent)
        if state.withLock({ $0.isFull }) { _ = wakeUp.wait(timeout: deadline) }
        pollHolding.store(false, ordering: .sequentiallyConsistent)
    }

    /// Ends a hold of the poll thread now: the app took events, paused, resumed or stopped consuming.
    func wakePollThread() {
        if pollHolding.exchange(false, ordering: .sequentiallyConsistent) { wakeUp.signal() }
    }

    /// Stamps `event` with its partition's generation (see ``KafkaConsumerState``) and buffers or hands it over.
    func deliver(_ event: KafkaConsumerEvent) {
        if case .resume(let waiter, let event) = state.withLock({ $0.deliver(event) }) {
            waiter.resume(returning: [event])
        }
    }

    /// Pauses or resumes every partition of the current assignment.
    private func setPaused(_ paused: Bool, rk: OpaquePointer) {
        var assignment: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?
        guard rd_kafka_assignment(rk, &assignment) == RD_KAFKA_RESP_ERR_NO_ERROR, let assignment else { return }
        let list = RDKafkaTopicPartitionList(taking: assignment)
        list.withPointer { pointer in
            _ = paused ? rd_kafka_pause_partitions(rk, pointer) : rd_kafka_resume_partitions(rk, pointer)
        }
    }

    // MARK: - Statistics and logs

    func updateStatistics(_ snapshot: RDKafkaStatistics.Snapshot) {
        let byPartition = Dictionary(snapshot.partitions.map { ($0.topicPartition, $0) }, uniquingKeysWith: { $1 })
        statistics.withLock { $0 = byPartition }
        brokers.withLock { $0 = snapshot.brokers }
    }

    var latestBrokerAvailability: KafkaBrokerAvailability? { brokers.withLock { $0 } }

    var latestStatistics: [KafkaPartitionStatistics] {
        statistics.withLock { Array($0.values) }.sorted { $0.topicPartition < $1.topicPartition }
    }

    // MARK: - C callbacks

    private static func context(_ opaque: UnsafeMutableRawPointer?) -> RDKafkaConsumerContext? {
        opaque.map { Unmanaged<RDKafkaConsumerContext>.fromOpaque($0).takeUnretainedValue() }
    }

    static let rebalanceCallback:
        @convention(c) (
            OpaquePointer?, rd_kafka_resp_err_t, UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?,
            UnsafeMutableRawPointer?
        ) -> Void = { rk, err, partitions, opaque in
            guard let rk, let partitions, let context = context(opaque) else { return }
            context.rebalance(rk, err, partitions)
        }

    static let errorCallback:
        @convention(c) (OpaquePointer?, Int32, UnsafePointer<CChar>?, UnsafeMutableRawPointer?)
            -> Void = { rk, err, reason, opaque in
                context(opaque)?.deliver(.error(RDKafkaMessage.clientError(rk, err, reason)))
            }

    static let statisticsCallback:
        @convention(c) (
            OpaquePointer?, UnsafeMutablePointer<CChar>?, Int,
            UnsafeMutableRawPointer?
        ) -> Int32 = { _, json, length, opaque in
            guard let json, let context = context(opaque) else { return 0 }
            context.updateStatistics(RDKafkaStatistics.parse(UnsafeRawBufferPointer(start: json, count: length)))
            return 0  // librdkafka frees the JSON
        }

    /// `log_cb` runs on librdkafka's internal threads: the app's handler must be quick and thread-safe.
    static let logCallback:
        @convention(c) (OpaquePointer?, Int32, UnsafePointer<CChar>?, UnsafePointer<CChar>?)
            -> Void = { rk, level, facility, text in
                guard let rk, let context = context(rd_kafka_opaque(rk)) else { return }
                RDKafkaMessage.log(RDKafkaMessage.logEntry(level, facility, text), to: context.logHandler)
            }

    var hasLogHandler: Bool { logHandler != nil }
}
