/// The broker's acknowledgement of a produced record.
public struct KafkaDeliveryReport: Sendable, Hashable {
    /// The topic name.
    public var topic: String
    /// The partition number within the topic.
    public var partition: Int32
    /// The record's offset in its partition.
    public var offset: Int64
    /// The record's timestamp in milliseconds since the Unix epoch, or `nil` if not available.
    public var timestampMs: Int64?

    /// Creates the value from its fields.
    public init(topic: String, partition: Int32, offset: Int64, timestampMs: Int64?) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.timestampMs = timestampMs
    }
}
