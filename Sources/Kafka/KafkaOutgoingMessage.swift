/// A record to produce.
public struct KafkaOutgoingMessage: Sendable, Hashable {
    /// The topic name.
    public var topic: String
    /// The target partition, or `nil` to let the partitioner choose from the key (librdkafka's default
    /// `consistent_random`: same key → same partition).
    public var partition: Int32?
    /// The record key; `nil` produces a null key.
    public var key: [UInt8]?
    /// The record value.
    public var value: [UInt8]
    /// The record headers, in order.
    public var headers: [KafkaHeader]
    /// CreateTime in milliseconds since the Unix epoch; `nil` lets librdkafka use the current time.
    public var timestampMs: Int64?

    /// Creates the value from its fields.
    public init(
        topic: String,
        partition: Int32? = nil,
        key: [UInt8]? = nil,
        value: [UInt8],
        headers: [KafkaHeader] = [],
        timestampMs: Int64? = nil
    ) {
        self.topic = topic
        self.partition = partition
        self.key = key
        self.value = value
        self.headers = headers
        self.timestampMs = timestampMs
    }
}
