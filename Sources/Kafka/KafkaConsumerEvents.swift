import Synchronization

/// The ``KafkaConsumer/events`` sequence. Taking an event frees its slot in the bounded buffer.
public struct KafkaConsumerEvents: AsyncSequence, Sendable {
    public typealias Element = KafkaConsumerEvent
    public typealias Failure = Never

    let context: RDKafkaConsumerContext

    public func makeAsyncIterator() -> Iterator { Iterator(context: context) }

    public struct Iterator: AsyncIteratorProtocol {
        let context: RDKafkaConsumerContext

        /// The next event, or `nil` once the consumer stopped or the task was cancelled.
        public mutating func next() async -> KafkaConsumerEvent? {
            let context = self.context
            return await withTaskCancellationHandler {
                await withCheckedContinuation { (waiter: KafkaConsumerState.Waiter) in
                    let action = context.state.withLock { state -> KafkaConsumerState.NextAction in
                        if Task.isCancelled { return .end }
                        return state.next(orWait: waiter)
                    }
                    switch action {
                    case .event(let event): waiter.resume(returning: event)
                    case .end: waiter.resume(returning: nil)
                    case .wait: break
                    }
                }
            } onCancel: {
                context.state.withLock { $0.takeWaiter() }?.resume(returning: nil)
            }
        }
    }
}
