import CKafka
import Synchronization

/// Matches delivery reports to the `send` calls awaiting them. It is the producer's callback context: each
/// produced message carries its registry id as `msg_opaque`, and `dr_msg_cb` (on the poll thread) settles it.
final class RDKafkaDeliveryRegistry: Sendable {
    typealias Outcome = Result<KafkaDeliveryReport, KafkaError>

    private enum Slot {
        case pending
        case waiting(CheckedContinuation<Outcome, Never>)
        case settled(Outcome)
        /// The record at `index` of a batch sent with a completion (``RDKafkaDeliveryBatch``).
        case batch(RDKafkaDeliveryBatch, index: Int)
    }

    private struct State {
        var nextID: UInt = 1
        var slots: [UInt: Slot] = [:]
        var closedError: KafkaError?
    }

    private let state = Mutex(State())
    let errorHandler: (@Sendable (KafkaError) -> Void)?
    let logHandler: (@Sendable (KafkaLogEntry) -> Void)?

    init(errorHandler: (@Sendable (KafkaError) -> Void)?, logHandler: (@Sendable (KafkaLogEntry) -> Void)?) {
        self.errorHandler = errorHandler
        self.logHandler = logHandler
    }

    // MARK: - Registration

    /// Reserves an id for a message about to be produced.
    func register() throws(KafkaError) -> UInt {
        try register(.pending)
    }

    /// Reserves an id for the record at `index` of `batch`, whose delivery report settles it there.
    func register(_ batch: RDKafkaDeliveryBatch, index: Int) throws(KafkaError) -> UInt {
        try register(.batch(batch, index: index))
    }

    private func register(_ slot: Slot) throws(KafkaError) -> UInt {
        let result: Result<UInt, KafkaError> = state.withLock { state in
            if let error = state.closedError { return .failure(error) }
            let id = state.nextID
            state.nextID += 1
            state.slots[id] = slot
            return .success(id)
        }
        return try result.get()
    }

    /// Settles an id whose message never reached librdkafka's queue.
    func cancel(_ id: UInt) {
        _ = state.withLock { $0.slots.removeValue(forKey: id) }
    }

    /// Waits for the delivery report of a registered id.
    func outcome(of id: UInt) async -> Outcome {
        await withCheckedContinuation { continuation in
            let ready: Outcome? = state.withLock { state in
                if case .settled(let outcome) = state.slots[id] {
                    state.slots[id] = nil
                    return outcome
                }
                state.slots[id] = .waiting(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    // MARK: - Settlement

    func settle(_ id: UInt, _ outcome: Outcome) {
        enum Waiter {
            case continuation(CheckedContinuation<Outcome, Never>)
            case batch(RDKafkaDeliveryBatch, index: Int)
        }
        let waiter: Waiter? = state.withLock { state in
            switch state.slots[id] {
            case .waiting(let continuation):
                state.slots[id] = nil
                return .continuation(continuation)
            case .batch(let batch, let index):
                state.slots[id] = nil
                return .batch(batch, index: index)
            case .pending:
                state.slots[id] = .settled(outcome)
                return nil
            case .settled, nil:
                return nil
            }
        }
        switch waiter {
        case .continuation(let continuation): continuation.resume(returning: outcome)
        case .batch(let batch, let index): batch.settle(index, outcome)
        case nil: break
        }
    }

    /// Fails every unsettled id (the client was destroyed) and refuses new registrations.
    func failAll(_ error: KafkaError) {
        let (waiting, batches) = state.withLock { state in
            state.closedError = error
            var waiting: [CheckedContinuation<Outcome, Never>] = []
            var batches: [(RDKafkaDeliveryBatch, Int)] = []
            for (id, slot) in state.slots {
                switch slot {
                case .waiting(let continuation):
                    waiting.append(continuation)
                    state.slots[id] = nil
                case .batch(let batch, let index):
                    batches.append((batch, index))
                    state.slots[id] = nil
                case .pending:
                    state.slots[id] = .settled(.failure(error))
                case .settled:
                    break
                }
            }
            return (waiting, batches)
        }
        for continuation in waiting { continuation.resume(returning: .failure(error)) }
        for (batch, index) in batches { batch.settle(index, .failure(error)) }
    }

    // MARK: - C callbacks

    /// `dr_msg_cb`: called once per message on the thread calling `rd_kafka_poll`/`rd_kafka_flush`.
    static let deliveryCallback:
        @convention(c) (
            OpaquePointer?, UnsafePointer<rd_kafka_message_t>?, UnsafeMutableRawPointer?
        ) -> Void = { _, message, opaque in
            guard let message, let opaque else { return }
            let registry = Unmanaged<RDKafkaDeliveryRegistry>.fromOpaque(opaque).takeUnretainedValue()
            let id = UInt(bitPattern: message.pointee._private)
            registry.settle(id, RDKafkaMessage.deliveryOutcome(message))
        }

    /// `error_cb`: forwards client-level errors (fatal ones via `rd_kafka_fatal_error`).
    static let errorCallback:
        @convention(c) (OpaquePointer?, Int32, UnsafePointer<CChar>?, UnsafeMutableRawPointer?)
            -> Void = { rk, err, reason, opaque in
                guard let opaque else { return }
                let registry = Unmanaged<RDKafkaDeliveryRegistry>.fromOpaque(opaque).takeUnretainedValue()
                registry.errorHandler?(RDKafkaMessage.clientError(rk, err, reason))
            }

    /// `log_cb`: may run on librdkafka's internal threads; the handler must be quick and thread-safe.
    static let logCallback:
        @convention(c) (OpaquePointer?, Int32, UnsafePointer<CChar>?, UnsafePointer<CChar>?)
            -> Void = { rk, level, facility, text in
                guard let rk, let opaque = rd_kafka_opaque(rk) else { return }
                let registry = Unmanaged<RDKafkaDeliveryRegistry>.fromOpaque(opaque).takeUnretainedValue()
                RDKafkaMessage.log(RDKafkaMessage.logEntry(level, facility, text), to: registry.logHandler)
            }
}
