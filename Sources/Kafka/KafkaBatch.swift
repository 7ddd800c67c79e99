/// Records handed out together by ``KafkaConsumer/nextBatch(upTo:window:idleTimeout:)``, with the fence that
/// decides, when the batch is done, whose offsets may be stored.
public struct KafkaBatch: Sendable {
    /// The records, in order per partition; each belongs to the generation its partition has in ``fence``.
    public var messages: [KafkaMessage]
    /// The batch's partitions, their assignment generations and the offset to store for each once the batch is
    /// durable.
    public internal(set) var fence: KafkaBatchFence
    /// Errors the consumer reported while the batch was assembled (most are informational; see
    /// ``KafkaError/isFatal``).
    public var errors: [KafkaError]
    /// Records taken from the buffer but dropped because their partition's generation ended before they were
    /// handed out (revoked or lost): the partition's next owner reads them again.
    public var staleRecordsDropped: Int

    /// Keeps only the records of the fence's partitions (after ``KafkaConsumer/retainCurrent(_:)``).
    public mutating func removeRecords(of partitions: Set<KafkaTopicPartition>) {
        guard !partitions.isEmpty else { return }
        messages.removeAll { partitions.contains($0.topicPartition) }
    }
}

/// A batch's claim on its partitions: per partition, the assignment generation its records were fetched in and
/// the offset after its last record. The consumer keeps the batch in flight until it is completed
/// (``KafkaConsumer/complete(_:)``), abandoned (``KafkaConsumer/abandon(_:)``) or its partitions leave.
public struct KafkaBatchFence: Sendable, Hashable {
    /// One partition's share of a batch.
    public struct Claim: Sendable, Hashable {
        /// The partition's assignment generation when the records were handed out.
        public var generation: UInt64
        /// The offset after the batch's last record of the partition: what is stored once the batch is durable.
        public var nextOffset: Int64
    }

    /// Identifies the batch among those of its consumer (hand-out order).
    public let batchID: UInt64
    /// The batch's partitions.
    public internal(set) var claims: [KafkaTopicPartition: Claim]

    /// The batch's partitions, sorted.
    public var partitions: [KafkaTopicPartition] { claims.keys.sorted() }

    /// True when the batch holds no partition (nothing to make durable).
    public var isEmpty: Bool { claims.isEmpty }
}

/// What ``KafkaConsumer/nextBatch(upTo:window:idleTimeout:)`` returns.
public enum KafkaBatchNext: Sendable {
    /// Records (and any errors reported meanwhile). A batch of errors only has an empty fence.
    case batch(KafkaBatch)
    /// Nothing arrived within the idle timeout.
    case idle
    /// The consumer stopped (``KafkaConsumer/stopConsuming()`` or close) or the waiting task was cancelled.
    case finished
}

/// What became of a completed batch's offsets (``KafkaConsumer/complete(_:)``).
public struct KafkaBatchCompletion: Sendable {
    /// Partitions whose offset was stored for the next commit (a partition whose earlier batch is still pending is
    /// in neither list: its offset is stored when that batch completes).
    public var stored: [KafkaTopicPartition] = []
    /// Partitions whose offset was not stored: their generation ended (revoked or lost) or an earlier batch of
    /// the same generation was abandoned; their next owner (or the next generation) reads the records again.
    public var refused: [KafkaTopicPartition] = []
    /// librdkafka refused to store these offsets (`rd_kafka_offsets_store`).
    public var errors: [KafkaTopicPartition: KafkaError] = [:]
}
