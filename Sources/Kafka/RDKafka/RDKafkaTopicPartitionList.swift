import CKafka

/// Owns an `rd_kafka_topic_partition_list_t`, destroyed in `deinit`. Raw access only inside ``withPointer(_:)``.
final class RDKafkaTopicPartitionList {
    private let list: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>

    init(capacity: Int = 1) {
        list = rd_kafka_topic_partition_list_new(Int32(max(capacity, 1)))
    }

    /// Takes ownership of a list librdkafka returned to the caller (e.g. from `rd_kafka_assignment`).
    init(taking list: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>) {
        self.list = list
    }

    convenience init(_ offsets: [KafkaTopicPartitionOffset]) {
        self.init(capacity: offsets.count)
        for entry in offsets { add(entry.topicPartition, offset: entry.offset) }
    }

    convenience init(_ partitions: [KafkaTopicPartition]) {
        self.init(capacity: partitions.count)
        for partition in partitions { add(partition, offset: KafkaTopicPartitionOffset.invalid) }
    }

    deinit { rd_kafka_topic_partition_list_destroy(list) }

    func add(_ partition: KafkaTopicPartition, offset: Int64) {
        let element = rd_kafka_topic_partition_list_add(list, partition.topic, partition.partition)!
        element.pointee.offset = offset
    }

    func withPointer<T>(_ body: (UnsafeMutablePointer<rd_kafka_topic_partition_list_t>) throws -> T) rethrows -> T {
        try body(list)
    }

    var entries: [Entry] { Self.entries(of: list) }

    // MARK: - Reading borrowed lists

    /// One element with its per-partition error (`NO_ERROR` when none).
    struct Entry {
        var offset: KafkaTopicPartitionOffset
        var error: rd_kafka_resp_err_t
        var partition: KafkaTopicPartition { offset.topicPartition }
    }

    /// Copies the elements of a list this code does not own (e.g. the one passed to a rebalance callback).
    static func entries(of list: UnsafePointer<rd_kafka_topic_partition_list_t>) -> [Entry] {
        guard let elems = list.pointee.elems else { return [] }
        return (0..<Int(list.pointee.cnt)).map { index in
            let element = elems[index]
            return Entry(
                offset: KafkaTopicPartitionOffset(
                    topic: String(cString: element.topic), partition: element.partition, offset: element.offset),
                error: element.err)
        }
    }
}
