/// How closing a client ended.
public enum KafkaCloseResult: Sendable, Hashable {
    /// Closed cleanly (for a consumer: final commit done, group left, handle destroyed; a cooperative-sticky
    /// consumer closed before its first assignment is left undestroyed instead, see ``KafkaConsumer/close(timeout:)``).
    case closed
    /// Closed, but librdkafka reported an error on the way (e.g. the final commit or flush failed).
    case failed(KafkaError)
    /// The watchdog tripped: librdkafka did not finish in time (2.0.2 can hang in close, #4187/#4528).
    /// The handle is leaked; the process should exit anyway (only stored, durable offsets were ever committed).
    case timedOut
}
