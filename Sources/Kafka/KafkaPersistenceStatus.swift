/// Whether a produced message was written by the broker (`rd_kafka_message_status()`), reported with delivery
/// failures so callers can tell "certainly not written" from "maybe written" (a retry may then duplicate it).
public enum KafkaPersistenceStatus: String, Sendable, Hashable {
    /// Never sent to, or certainly rejected by, the broker.
    case notPersisted = "not persisted"
    /// Sent, but no acknowledgement arrived: the broker may or may not have written it.
    case possiblyPersisted = "possibly persisted"
    /// Written and acknowledged by the broker.
    case persisted
}
