import Dispatch
import Essentials
import Synchronization

extension RDKafkaConsumerContext {
    /// Takes up to `limit` buffered events, waiting for the first one at most `timeout` (`nil`: until one arrives
    /// or the consumer stops). Cancelling the calling task ends the wait with ``KafkaConsumerNext/finished``.
    func take(upTo limit: Int, timeout: Duration?) async -> KafkaConsumerNext {
        let events = await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: KafkaConsumerState.Waiter) in
                let action = state.withLock { state -> KafkaConsumerState.NextAction in
                    if Task.isCancelled { return .end }
                    return state.next(upTo: limit, orWait: waiter)
                }
                switch action {
                case .events(let events): waiter.resume(returning: events)
                case .end: waiter.resume(returning: [])
                case .wait(let id):
                    guard let timeout else { return }
                    let nanoseconds = max(0, Int(timeout.nanoseconds))
                    Self.timerQueue.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [self] in
                        state.withLock { $0.takeWaiter(id: id) }?.resume(returning: [])
                    }
                }
            }
        } onCancel: {
            state.withLock { $0.takeWaiter() }?.resume(returning: [])
        }
        if !events.isEmpty {
            wakePollThread()
            return .events(events)
        }
        return state.withLock { $0.finished } || Task.isCancelled ? .finished : .timedOut
    }

    /// Fires the wake-ups of ``take(upTo:timeout:)`` calls that timed out.
    static let timerQueue = DispatchQueue(label: "kafka-consumer-take-timer")
}
