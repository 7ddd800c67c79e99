/// Per-partition consumer figures from librdkafka's statistics JSON (`statistics.interval.ms`, STATISTICS.md).
/// Values are `-1` when librdkafka does not know them yet.
public struct KafkaPartitionStatistics: Sendable, Hashable {
    /// The topic name.
    public var topic: String
    /// The partition number within the topic.
    public var partition: Int32
    /// `consumer_lag`: high watermark minus committed offset (or minus the next fetch position).
    public var consumerLag: Int64
    /// `consumer_lag_stored`: high watermark minus stored offset.
    public var consumerLagStored: Int64
    /// `lo_offset`: the partition's log start (first retained offset).
    public var lowWatermark: Int64
    /// `hi_offset`: the partition's high watermark.
    public var highWatermark: Int64
    /// `committed_offset`: last committed offset of the group.
    public var committedOffset: Int64
    /// `stored_offset`: offset stored for the next commit.
    public var storedOffset: Int64
    /// `next_offset`: next offset to fetch.
    public var nextOffset: Int64

    /// Creates the value from its fields.
    public init(
        topic: String, partition: Int32, consumerLag: Int64, consumerLagStored: Int64, lowWatermark: Int64,
        highWatermark: Int64, committedOffset: Int64, storedOffset: Int64, nextOffset: Int64
    ) {
        self.topic = topic
        self.partition = partition
        self.consumerLag = consumerLag
        self.consumerLagStored = consumerLagStored
        self.lowWatermark = lowWatermark
        self.highWatermark = highWatermark
        self.committedOffset = committedOffset
        self.storedOffset = storedOffset
        self.nextOffset = nextOffset
    }

    /// True when the committed offset points before the log start: records between the two were removed by
    /// retention before this group read them (librdkafka then resets silently with only an `OFFSET` warning).
    public var fellBehindRetention: Bool {
        committedOffset >= 0 && lowWatermark >= 0 && committedOffset < lowWatermark
    }

    /// The record's topic and partition.
    public var topicPartition: KafkaTopicPartition { KafkaTopicPartition(topic: topic, partition: partition) }
}
