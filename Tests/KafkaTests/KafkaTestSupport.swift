import Foundation
import Kafka
import TestSupport

/// Shared helpers for tests against an in-process mock cluster.
enum KafkaTestSupport {
    /// A mock cluster with the given topics (name → partitions).
    static func cluster(brokers: Int = 3, topics: [String: Int]) throws -> KafkaMockCluster {
        try TestBrokers.mockCluster(brokers: brokers, topics: topics)
    }

    static func producerConfiguration(_ bootstrap: String) -> KafkaProducerConfiguration {
        var configuration = KafkaProducerConfiguration(bootstrapServers: bootstrap)
        configuration.lingerMs = 1
        configuration.extra = ["log_level": "3"]
        return configuration
    }

    /// Mock-friendly group settings (rebalances wait session.timeout − 1 s on the 2.0.2 mock).
    static func consumerConfiguration(_ bootstrap: String, group: String) -> KafkaConsumerConfiguration {
        var configuration = KafkaConsumerConfiguration(bootstrapServers: bootstrap, groupId: group)
        configuration.sessionTimeoutMs = 6_000
        configuration.heartbeatIntervalMs = 1_000
        configuration.autoCommitIntervalMs = 1_000
        configuration.statisticsIntervalMs = 1_000
        configuration.extra = ["log_level": "3"]
        return configuration
    }

    /// `count` records spread over keys `key-0`…`key-(keys-1)` with the index as value.
    static func messages(topic: String, count: Int, keys: Int = 8, from start: Int = 0) -> [KafkaOutgoingMessage] {
        (start..<(start + count)).map { index in
            KafkaOutgoingMessage(topic: topic, key: Array("key-\(index % keys)".utf8), value: Array("\(index)".utf8))
        }
    }

    /// Collects records from `consumer.events` until `count` arrived or `limit` passed (the iteration is then
    /// cancelled, which leaves the consumer running), storing each one's offset unless `store` is false.
    static func consume(
        _ consumer: KafkaConsumer, count: Int, within limit: Duration = .seconds(30), store: Bool = true
    ) async -> [KafkaMessage] {
        let reader = Task {
            var received: [KafkaMessage] = []
            for await event in consumer.events {
                guard case .message(let message) = event else { continue }
                received.append(message)
                if store { consumer.storeOffsets(after: [message]) }
                if received.count >= count { break }
            }
            return received
        }
        let watchdog = Task {
            try? await Task.sleep(for: limit)
            reader.cancel()
        }
        defer { watchdog.cancel() }
        return await reader.value
    }

    /// Waits until `condition` holds, checking every 100 ms.
    static func waitUntil(within limit: Duration = .seconds(30), _ condition: () throws -> Bool) async rethrows
        -> Bool
    {
        try await eventually(timeout: limit, interval: .milliseconds(100), condition)
    }
}

extension KafkaMessage {
    var valueString: String { String(decoding: value, as: UTF8.self) }
}
