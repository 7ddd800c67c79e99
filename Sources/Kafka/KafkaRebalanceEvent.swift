/// A change of the consumer's partition assignment, passed to the consumer's rebalance handler.
///
/// The handler runs synchronously on the consumer's poll thread, inside librdkafka's rebalance callback.
public enum KafkaRebalanceEvent: Sendable, Hashable {
    /// These partitions are now assigned (already assigned and, if the app paused consumption, paused), in a new
    /// assignment `generation`: every record fetched for them until they are revoked carries it
    /// (``KafkaMessage/assignmentGeneration``).
    case assigned([KafkaTopicPartition], generation: UInt64)
    /// These partitions are being taken away; their buffered records are already dropped and no more are handed
    /// out. After the handler returns, the consumer waits (``KafkaConsumerConfiguration/revokeWait``) for their
    /// batches in flight to complete or be abandoned, then ends their generation, commits stored offsets (unless
    /// `lost`) and unassigns.
    /// `lost` means the group already gave them to someone else: their generation ended before the handler runs,
    /// so no offset of theirs can be stored any more, and committing is futile.
    case revoked([KafkaTopicPartition], lost: Bool)
}
