import Kafka
import Testing

/// `KafkaTopicRetention` (issue 38, item 6: `storectl erase` says when the topic's last copy of a person expires):
/// what a topic description means, and what librdkafka 2.0.2's mock cluster answers to DescribeConfigs.
@Suite("Topic retention", .timeLimit(.minutes(1)))
struct TopicRetentionTests {
    @Test("the mock cluster has no DescribeConfigs: describe throws, it never makes a retention up")
    func mockClusterDoesNotDescribeTopics() async throws {
        let cluster = try KafkaTestSupport.cluster(brokers: 1, topics: ["daily-values": 2])
        let error = await #expect(throws: KafkaError.self) {
            try await KafkaTopicRetention.describe(
                topic: "daily-values", bootstrapServers: cluster.bootstrapServers, properties: ["log_level": "3"],
                timeout: .seconds(3))
        }
        // 2.0.2's mock has no DescribeConfigs handler and names no controller: the request waits for one until the
        // timeout (`_TIMED_OUT`, "Failed while waiting for controller"). Any error will do here: never a value.
        print("mock cluster DescribeConfigs: \(error?.code.name ?? "-"): \(error.map { "\($0)" } ?? "-")")
        #expect(error != nil)
    }

    @Test(
        "a description's retention: time-bounded, unbounded (-1), compacted",
        arguments: [
            (["retention.ms": "604800000", "segment.ms": "86400000", "cleanup.policy": "delete"], 691_200_000),
            (["retention.ms": "3600000"], 3_600_000 + 604_800_000),
            (["retention.ms": "-1", "segment.ms": "86400000"], nil),
            (["retention.ms": "604800000", "cleanup.policy": "compact,delete"], nil),
        ] as [([String: String], Int64?)])
    func description(_ entries: [String: String], worstCaseMs: Int64?) throws {
        let retention = try #require(KafkaTopicRetention(configuration: entries))
        #expect(retention.worstCaseMs == worstCaseMs)
        #expect(retention.isCompacted == (entries["cleanup.policy"]?.contains("compact") ?? false))
    }

    @Test("a description without retention.ms is no retention")
    func missingRetention() {
        #expect(KafkaTopicRetention(configuration: ["segment.ms": "1"]) == nil)
    }
}
