/// What the consumer's ``KafkaConsumer/events`` sequence delivers.
public enum KafkaConsumerEvent: Sendable, Hashable {
    /// A record.
    case message(KafkaMessage)
    /// The consumer reached the end of a partition (only with `enablePartitionEOF`); `offset` is the next offset,
    /// `generation` the partition's assignment generation when it was seen (see
    /// ``KafkaMessage/assignmentGeneration``). Informational: it is emitted again after rebalances and whenever new
    /// records are read up to the end.
    case partitionEOF(topic: String, partition: Int32, offset: Int64, generation: UInt64)
    /// An error librdkafka reported while consuming. Most are informational and recovered automatically;
    /// check ``KafkaError/isFatal``.
    case error(KafkaError)
}
