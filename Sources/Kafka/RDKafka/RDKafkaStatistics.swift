#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Parses librdkafka's statistics JSON (STATISTICS.md) into per-partition consumer figures and broker states.
enum RDKafkaStatistics {
    /// The parts of one statistics document the consumer keeps.
    struct Snapshot {
        var partitions: [KafkaPartitionStatistics] = []
        var brokers = KafkaBrokerAvailability(up: 0, known: 0)
    }

    static func parse(_ json: UnsafeRawBufferPointer) -> Snapshot {
        guard let root = try? JSONDecoder().decode(Document.self, from: Data(json)) else { return Snapshot() }
        var snapshot = Snapshot()
        snapshot.partitions = partitions(root)
        // Brokers learnt from metadata have a node id ≥ 0; bootstrap entries (-1) are left out.
        for broker in (root.brokers ?? [:]).values {
            guard (broker.nodeid ?? -1) >= 0 else { continue }
            snapshot.brokers.known += 1
            if broker.state == "UP" { snapshot.brokers.up += 1 }
        }
        return snapshot
    }

    private static func partitions(_ root: Document) -> [KafkaPartitionStatistics] {
        var result: [KafkaPartitionStatistics] = []
        for (topic, value) in root.topics ?? [:] {
            for (key, figures) in value.partitions ?? [:] {
                // Partition -1 is librdkafka's internal "unassigned" partition.
                guard let partition = Int32(key), partition >= 0 else { continue }
                result.append(
                    KafkaPartitionStatistics(
                        topic: topic, partition: partition,
                        consumerLag: figures.consumerLag ?? -1, consumerLagStored: figures.consumerLagStored ?? -1,
                        lowWatermark: figures.lowWatermark ?? -1, highWatermark: figures.highWatermark ?? -1,
                        committedOffset: figures.committedOffset ?? -1, storedOffset: figures.storedOffset ?? -1,
                        nextOffset: figures.nextOffset ?? -1))
            }
        }
        return result
    }

    // MARK: - The document's parts read (every other field is ignored)

    private struct Document: Decodable {
        var brokers: [String: Broker]?
        var topics: [String: Topic]?
    }

    private struct Broker: Decodable {
        var nodeid: Int?
        var state: String?
    }

    private struct Topic: Decodable {
        var partitions: [String: Figures]?
    }

    private struct Figures: Decodable {
        var consumerLag: Int64?
        var consumerLagStored: Int64?
        var lowWatermark: Int64?
        var highWatermark: Int64?
        var committedOffset: Int64?
        var storedOffset: Int64?
        var nextOffset: Int64?

        enum CodingKeys: String, CodingKey {
            case consumerLag = "consumer_lag", consumerLagStored = "consumer_lag_stored", lowWatermark = "lo_offset"
            case highWatermark = "hi_offset", committedOffset = "committed_offset", storedOffset = "stored_offset"
            case nextOffset = "next_offset"
        }
    }
}
