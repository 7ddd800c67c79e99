import Kafka
import ObservationUpsert
import Testing

@testable import WorkerCore

/// The offsets a batch stores: per partition, its last (highest-offset) record, whatever the interleaving.
@Suite("Batch: last record per partition")
struct BatchLastRecordTests {
    private let processor: BatchProcessor

    init() throws {
        processor = BatchProcessor(
            decoder: DailyValueDecoder(),
            mapper: try ObservationMapper(configuration: .init(idKey: Array("0123456789abcdef".utf8))),
            deadLetter: DeadLetter(topic: "t.dlq", group: "g", workerID: "w", workerVersion: "1"))
    }

    private func message(_ topic: String, _ partition: Int32, _ offset: Int64) -> KafkaMessage {
        KafkaMessage(topic: topic, partition: partition, offset: offset, key: nil, value: Array("{oops".utf8),
                     headers: [], timestampMs: nil, timestampType: .notAvailable)
    }

    @Test("Interleaved partitions, the same partition number on two topics, offsets out of order and repeated")
    func interleaved() {
        let batch = [
            message("a", 0, 5), message("a", 0, 6), message("b", 0, 1), message("a", 1, 9), message("a", 0, 4),
            message("b", 0, 3), message("b", 0, 2), message("a", 1, 9), message("a", 0, 7), message("a", 1, 8),
        ]
        let last = processor.decode(batch).lastRecords.mapValues(\.offset)
        #expect(last == [
            KafkaTopicPartition(topic: "a", partition: 0): 7, KafkaTopicPartition(topic: "a", partition: 1): 9,
            KafkaTopicPartition(topic: "b", partition: 0): 3,
        ])
    }

    @Test("Against the per-record maximum on random batches")
    func randomBatches() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let batch = (0..<Int.random(in: 0..<60, using: &random)).map { _ in
                message(Bool.random(using: &random) ? "a" : "b", Int32.random(in: 0..<3, using: &random),
                        Int64.random(in: 0..<20, using: &random))
            }
            var expected: [KafkaTopicPartition: Int64] = [:]
            for m in batch { expected[m.topicPartition] = max(expected[m.topicPartition] ?? -1, m.offset) }
            #expect(processor.decode(batch).lastRecords.mapValues(\.offset) == expected)
        }
    }
}
