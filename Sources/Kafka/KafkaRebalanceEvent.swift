/// A change of the consumer's partition assignment, passed to the consumer's rebalance handler.
///
/// The handler runs synchronously on the consumer's poll thread, inside librdkafka's rebalance callback.
public enum KafkaRebalanceEvent: Sendable, Hashable {
    /// These partitions are now assigned (already assigned and, if the app paused consumption, paused).
    case assigned([KafkaTopicPartition])
    /// These partitions are being taken away. The handler should finish or abandon in-flight work for them and
    /// store the offsets of finished work; after it returns the consumer commits stored offsets (unless `lost`)
    /// and unassigns. `lost` means the group already gave them to someone else: committing is futile.
    case revoked([KafkaTopicPartition], lost: Bool)
}
