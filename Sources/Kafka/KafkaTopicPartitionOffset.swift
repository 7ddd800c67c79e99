/// A partition with an offset: an offset to store or commit (the *next* offset to read), a committed offset, or
/// a start position for a manual assignment (which may be one of the logical offsets below).
public struct KafkaTopicPartitionOffset: Sendable, Hashable, CustomStringConvertible {
    /// The topic name.
    public var topic: String
    /// The partition number within the topic.
    public var partition: Int32
    /// The offset within the partition.
    public var offset: Int64

    /// Logical offset: the partition's first available record (`RD_KAFKA_OFFSET_BEGINNING`).
    public static let beginning: Int64 = -2
    /// Logical offset: only records produced from now on (`RD_KAFKA_OFFSET_END`).
    public static let end: Int64 = -1
    /// Logical offset: the group's committed offset, else `auto.offset.reset` (`RD_KAFKA_OFFSET_STORED`).
    public static let stored: Int64 = -1000
    /// No offset (nothing committed yet) (`RD_KAFKA_OFFSET_INVALID`).
    public static let invalid: Int64 = -1001

    /// Creates the value from its fields.
    public init(topic: String, partition: Int32, offset: Int64) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
    }

    /// Creates the value for `topicPartition` at `offset`.
    public init(_ topicPartition: KafkaTopicPartition, offset: Int64) {
        self.init(topic: topicPartition.topic, partition: topicPartition.partition, offset: offset)
    }

    /// The record's topic and partition.
    public var topicPartition: KafkaTopicPartition { KafkaTopicPartition(topic: topic, partition: partition) }

    public var description: String { "\(topic)[\(partition)]@\(offset)" }
}
