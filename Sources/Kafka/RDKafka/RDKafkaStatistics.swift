import Foundation

/// Parses librdkafka's statistics JSON (STATISTICS.md) into per-partition consumer figures.
enum RDKafkaStatistics {
    static func partitions(fromJSON json: UnsafeRawBufferPointer) -> [KafkaPartitionStatistics] {
        let data = Data(json)
        guard let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let topics = root["topics"] as? [String: Any]
        else { return [] }
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
