import DailyValueContract
import Kafka

/// What happened to one event handed to ``DailyValuePublisher``.
public enum PublishResult: Sendable, Hashable {
    /// The broker acknowledged the record (with `acks=all`: every in-sync replica has it).
    case acknowledged(partition: Int32, offset: Int64)
    /// The event breaks the DailyValue contract; nothing was sent for it.
    case rejected(DailyValueError)
    /// The record could not be delivered (queueing failed, or not acknowledged within `message.timeout.ms`).
    case failed(KafkaError)

    /// `true` for ``acknowledged(partition:offset:)``.
    public var isAcknowledged: Bool {
        if case .acknowledged = self { return true }
        return false
    }
}
