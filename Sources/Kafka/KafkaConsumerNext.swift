/// What ``KafkaConsumer/next(upTo:timeout:)`` returns.
public enum KafkaConsumerNext: Sendable {
    /// One or more events, in order per partition (at most the requested number).
    case events([KafkaConsumerEvent])
    /// Nothing arrived within the timeout.
    case timedOut
    /// The consumer stopped (``KafkaConsumer/stopConsuming()`` or close), or the waiting task was cancelled.
    case finished
}
