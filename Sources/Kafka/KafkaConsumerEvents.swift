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
            guard case .events(let events) = await context.take(upTo: 1, timeout: nil) else { return nil }
            return events.first
        }
    }
}
