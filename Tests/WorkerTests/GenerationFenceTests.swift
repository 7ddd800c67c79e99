import Foundation
import Kafka
import Testing

@testable import WorkerCore

/// A record fetched before its partition was lost must never reach a batch or an offset after the partition was
/// assigned again (the fetch restarts at the committed offset; storing past the stale record skips the gap).
@Suite("Generation fence")
struct GenerationFenceTests {
    private static let p0 = KafkaTopicPartition(topic: "daily-values", partition: 0)

    private static func record(offset: Int64) -> KafkaMessage {
        KafkaMessage(topic: p0.topic, partition: p0.partition, offset: offset, key: nil, value: Array("{}".utf8),
                     headers: [], timestampMs: nil, timestampType: .notAvailable)
    }

    @Test("lost → re-assigned: a record fetched under the old assignment is not accepted")
    func lostThenReassigned() async {
        let tracker = PartitionTracker()
        let channel = BoundedChannel<KafkaConsumerEvent>(capacity: 10)
        tracker.assign([Self.p0])
        // Fetched under the first assignment, waiting between the consumer and the batch loop.
        await channel.send(.message(Self.record(offset: 10)))
        // All brokers down past the session timeout: the assignment is lost, then the same partition comes back.
        tracker.revoke([Self.p0], waitingAtMost: .zero)
        tracker.assign([Self.p0])
        guard case .element(.message(let stale)) = await channel.receive(timeout: .seconds(1)) else {
            Issue.record("the record did not arrive")
            return
        }
        #expect(tracker.accept(stale) == nil, "a record of the lost assignment was accepted as current")
    }
}
