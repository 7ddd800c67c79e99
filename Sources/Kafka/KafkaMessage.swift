/// A consumed record, copied out of librdkafka's memory (safe to keep after the consumer moved on).
public struct KafkaMessage: Sendable, Hashable {
    /// How ``KafkaMessage/timestampMs`` was set.
    public enum TimestampType: String, Sendable, Hashable {
        case notAvailable
        case createTime
        case logAppendTime
    }

    /// The topic name.
    public var topic: String {
        get { box.fields.topic }
        set { uniqueBox().fields.topic = newValue }
    }
    /// The partition number within the topic.
    public var partition: Int32 {
        get { box.fields.partition }
        set { uniqueBox().fields.partition = newValue }
    }
    /// The offset within the partition.
    public var offset: Int64 {
        get { box.fields.offset }
        set { uniqueBox().fields.offset = newValue }
    }
    /// The record key, `nil` for a null key.
    public var key: [UInt8]? {
        get { box.fields.key }
        set { uniqueBox().fields.key = newValue }
    }
    /// The record value; a null value is delivered as an empty array (and ``valueIsNull``).
    public var value: [UInt8] {
        get { box.fields.value }
        set { uniqueBox().fields.value = newValue }
    }
    /// True when the record's value is null (a tombstone) rather than empty.
    public var valueIsNull: Bool {
        get { box.fields.valueIsNull }
        set { uniqueBox().fields.valueIsNull = newValue }
    }
    /// The record headers, in order.
    public var headers: [KafkaHeader] {
        get { box.fields.headers }
        set { uniqueBox().fields.headers = newValue }
    }
    /// Milliseconds since the Unix epoch, or `nil` when ``timestampType`` is ``TimestampType/notAvailable``.
    public var timestampMs: Int64? {
        get { box.fields.timestampMs }
        set { uniqueBox().fields.timestampMs = newValue }
    }
    /// How ``timestampMs`` was set.
    public var timestampType: TimestampType {
        get { box.fields.timestampType }
        set { uniqueBox().fields.timestampType = newValue }
    }
    /// The assignment generation of the partition when the consumer fetched this record (set on the poll thread;
    /// 0 for records not read by a ``KafkaConsumer``). Only records of the partition's current generation may have
    /// their offsets stored: see ``KafkaConsumer/complete(_:)`` and ``KafkaConsumer/storeOffsets(after:)``. Kept beside the box: stamping it must not
    /// copy the record's fields.
    public var assignmentGeneration: UInt64 = 0

    /// The record's fields, in one copy-on-write box: a record is copied several times on its way through the
    /// consumer's buffer and the worker's batches, and one retain per copy is cheaper than one per array and string.
    private struct Fields: Hashable, Sendable {
        var topic: String
        var partition: Int32
        var offset: Int64
        var key: [UInt8]?
        var value: [UInt8]
        var headers: [KafkaHeader]
        var timestampMs: Int64?
        var timestampType: TimestampType
        var valueIsNull: Bool
    }

    /// `@unchecked Sendable`: a box is only mutated through ``uniqueBox()``, i.e. while no other copy (on any
    /// thread) refers to it. Not a generic box shared with the other copy-on-write type: unspecialized across
    /// modules, a generic box's accessors copy the whole struct per field read.
    private final class Box: @unchecked Sendable {
        var fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    private var box: Box

    private mutating func uniqueBox() -> Box {
        if !isKnownUniquelyReferenced(&box) { box = Box(box.fields) }
        return box
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.assignmentGeneration == rhs.assignmentGeneration
            && (lhs.box === rhs.box || lhs.box.fields == rhs.box.fields)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(box.fields)
        hasher.combine(assignmentGeneration)
    }

    /// Whether two records share their fields' storage (for tests of the copy-free paths).
    package func sharesStorage(with other: KafkaMessage) -> Bool { box === other.box }

    /// Creates the value from its fields.
    public init(
        topic: String,
        partition: Int32,
        offset: Int64,
        key: [UInt8]?,
        value: [UInt8],
        headers: [KafkaHeader],
        timestampMs: Int64?,
        timestampType: TimestampType,
        valueIsNull: Bool = false
    ) {
        box = Box(
            Fields(
                topic: topic, partition: partition, offset: offset, key: key, value: value, headers: headers,
                timestampMs: timestampMs, timestampType: timestampType, valueIsNull: valueIsNull))
    }

    /// The partition of this record.
    public var topicPartition: KafkaTopicPartition { KafkaTopicPartition(topic: topic, partition: partition) }

    /// The offset to store once this record is processed (the next offset to read: `offset + 1`).
    public var nextOffset: KafkaTopicPartitionOffset {
        KafkaTopicPartitionOffset(topic: topic, partition: partition, offset: offset + 1)
    }
}
