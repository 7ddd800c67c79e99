/// A consumed record, copied out of librdkafka's memory (safe to keep after the consumer moved on).
public struct KafkaMessage: Sendable, Hashable {
    /// How ``KafkaMessage/timestampMs`` was set.
    public enum TimestampType: String, Sendable, Hashable {
        case notAvailable
        case createTime
        case logAppendTime
    }

    /// The topic name.
    public var topic: String
    /// The partition number within the topic.
    public var partition: Int32
    /// The offset within the partition.
    public var offset: Int64
    /// The record key, `nil` for a null key.
    public var key: [UInt8]?
    /// The record value; a null value is delivered as an empty array.
    public var value: [UInt8]
    /// The record headers, in order.
    public var headers: [KafkaHeader]
    /// Milliseconds since the Unix epoch, or `nil` when ``timestampType`` is ``TimestampType/notAvailable``.
    public var timestampMs: Int64?
    /// How ``timestampMs`` was set.
    public var timestampType: TimestampType
    /// The assignment generation of the partition when the consumer fetched this record (set on the poll thread;
    /// 0 for records not read by a ``KafkaConsumer``). Only records of the partition's current generation may have
    /// their offsets stored: see ``KafkaConsumer/storeOffsets(after:)``.
    public var assignmentGeneration: UInt64 = 0

    /// Creates the value from its fields.
    public init(
        topic: String,
        partition: Int32,
        offset: Int64,
        key: [UInt8]?,
        value: [UInt8],
        headers: [KafkaHeader],
        timestampMs: Int64?,
        timestampType: TimestampType
    ) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.key = key
        self.value = value
        self.headers = headers
        self.timestampMs = timestampMs
        self.timestampType = timestampType
    }

    /// The partition of this record.
    public var topicPartition: KafkaTopicPartition { KafkaTopicPartition(topic: topic, partition: partition) }

    /// The offset to store once this record is processed (the next offset to read: `offset + 1`).
    public var nextOffset: KafkaTopicPartitionOffset {
        KafkaTopicPartitionOffset(topic: topic, partition: partition, offset: offset + 1)
    }
}
