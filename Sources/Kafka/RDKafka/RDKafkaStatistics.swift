import Foundation

/// Parses librdkafka's statistics JSON (STATISTICS.md) into per-partition consumer figures and broker states.
enum RDKafkaStatistics {
    /// The parts of one statistics document the consumer keeps.
    struct Snapshot {
        var partitions: [KafkaPartitionStatistics] = []
        var brokers = KafkaBrokerAvailability(up: 0, known: 0)
    }

    static func parse(_ json: UnsafeRawBufferPointer) -> Snapshot {
        guard let root = try? JSONSerialization.jsonObject(with: Data(json)) as? [String: Any] else { return Snapshot() }
        var snapshot = Snapshot()
        snapshot.partitions = partitions(root)
        // Brokers learnt from metadata have a node id ≥ 0; bootstrap entries (-1) are left out.
        for case let broker as [String: Any] in (root["brokers"] as? [String: Any] ?? [:]).values {
            guard ((broker["nodeid"] as? NSNumber)?.intValue ?? -1) >= 0 else { continue }
            snapshot.brokers.known += 1
            if broker["state"] as? String == "UP" { snapshot.brokers.up += 1 }
        }
        return snapshot
    }

    private static func partitions(_ root: [String: Any]) -> [KafkaPartitionStatistics] {
        guard let topics = root["topics"] as? [String: Any] else { return [] }
        var result: [KafkaPartitionStatistics] = []
        for (topic, value) in topics {
            guard let partitions = (value as? [String: Any])?["partitions"] as? [String: Any] else { continue }
            for (key, value) in partitions {
                // Partition -1 is librdkafka's internal "unassigned" partition.
                guard let partition = Int32(key), partition >= 0, let figures = value as? [String: Any] else {
                    continue
                }
                func number(_ name: String) -> Int64 { (figures[name] as? NSNumber)?.int64Value ?? -1 }
                result.append(
                    KafkaPartitionStatistics(
                        topic: topic, partition: partition,
                        consumerLag: number("consumer_lag"), consumerLagStored: number("consumer_lag_stored"),
                        lowWatermark: number("lo_offset"), highWatermark: number("hi_offset"),
                        committedOffset: number("committed_offset"), storedOffset: number("stored_offset"),
                        nextOffset: number("next_offset")))
            }
        }
        return result
    }
}
