/// A partition of a topic.
public struct KafkaTopicPartition: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The topic name.
    public var topic: String
    /// The partition number within the topic.
    public var partition: Int32

    /// Creates the value from its fields.
    public init(topic: String, partition: Int32) {
        self.topic = topic
        self.partition = partition
    }

    /// Orders by topic, then partition.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.topic, lhs.partition) < (rhs.topic, rhs.partition)
    }

    public var description: String { "\(topic)[\(partition)]" }
}
