import Essentials

/// How long a topic keeps a record, from the brokers' description of the topic (DescribeConfigs): its
/// `retention.ms`, the `segment.ms` a record can outlive it by, and whether the topic is compacted.
///
/// Kafka deletes whole log segments: a record goes once the newest record of its segment is older than
/// `retention.ms`, and a segment stays open (undeleted) for up to `segment.ms` after its first record. So a record
/// appended now is gone at the latest after `segmentMs + retentionMs` (plus the broker's retention check interval,
/// 5 minutes by default). A compacted topic keeps a key's latest record until a newer record with the same key
/// replaces it: there is no time bound at all.
///
/// librdkafka 2.0.2's mock cluster (devbroker, the tests) has no DescribeConfigs: ``describe(topic:
/// bootstrapServers:properties:timeout:)`` throws there, and a caller falls back to what the operator states
/// (e.g. `--topic-retention`), never to a guess.
public struct KafkaTopicRetention: Sendable, Hashable {
    /// `retention.ms`; nil when it is -1 (no time limit).
    public var retentionMs: Int64?
    /// `retention.bytes`; nil when it is -1 (no size limit). A size limit only makes records go sooner.
    public var retentionBytes: Int64?
    /// `segment.ms` (nil when the description lacks it: Kafka's default is 7 days).
    public var segmentMs: Int64?
    /// `cleanup.policy` contains `compact`: the latest record of each key is kept however old it is.
    public var isCompacted: Bool

    /// Kafka's default `segment.ms`: 7 days.
    public static let defaultSegmentMs: Int64 = 604_800_000

    public init(retentionMs: Int64?, retentionBytes: Int64? = nil, segmentMs: Int64? = nil, isCompacted: Bool = false) {
        self.retentionMs = retentionMs
        self.retentionBytes = retentionBytes
        self.segmentMs = segmentMs
        self.isCompacted = isCompacted
    }

    /// The retention a topic's configuration entries describe.
    /// - Returns: nil when the entries have no `retention.ms` (a broker that left it out: not a value to guess).
    public init?(configuration entries: [String: String]) {
        guard let retention = entries["retention.ms"].flatMap({ Int64($0) }) else { return nil }
        func limit(_ value: Int64?) -> Int64? { value.flatMap { $0 < 0 ? nil : $0 } }
        self.init(
            retentionMs: limit(retention), retentionBytes: limit(entries["retention.bytes"].flatMap { Int64($0) }),
            segmentMs: limit(entries["segment.ms"].flatMap { Int64($0) }),
            isCompacted: (entries["cleanup.policy"] ?? "delete").split(separator: ",").contains {
                $0.trimmingWhitespace() == "compact"
            })
    }

    /// The longest a record appended now can stay in the topic, in milliseconds: `segment.ms + retention.ms`; nil
    /// when there is no bound (no time limit, or a compacted topic).
    public var worstCaseMs: Int64? {
        guard let retentionMs, !isCompacted else { return nil }
        let (sum, overflow) = retentionMs.addingReportingOverflow(segmentMs ?? Self.defaultSegmentMs)
        return overflow ? nil : sum
    }

    /// Asks the brokers for `topic`'s configuration (DescribeConfigs) with a short-lived client of its own (no
    /// consumer group, nothing produced), on a thread of its own.
    /// - Parameter properties: librdkafka pass-through properties (SASL, TLS), applied last.
    /// - Throws: ``KafkaError`` when the brokers do not support (the mock cluster), deny or do not answer the
    ///   request within `timeout`, or the topic's description lacks `retention.ms`.
    public static func describe(
        topic: String, bootstrapServers: String, properties: [String: String] = [:], timeout: Duration = .seconds(10)
    ) async throws(KafkaError) -> KafkaTopicRetention {
        var configuration = KafkaProducerConfiguration(bootstrapServers: bootstrapServers)
        configuration.clientId = "dvp-topic-retention"
        configuration.enableIdempotence = false
        configuration.extra = properties
        let client = try RDKafkaClient(kind: .producer, properties: try configuration.properties(), context: nil)
        let result: Result<[String: String], KafkaError> = await RDKafkaBlocking.run("kafka-describe-configs") {
            defer { client.destroy() }
            do throws(KafkaError) {
                return .success(try client.topicConfiguration(topic, timeoutMs: KafkaProducer.milliseconds(timeout)))
            } catch { return .failure(error) }
        }
        guard let retention = KafkaTopicRetention(configuration: try result.get()) else {
            throw KafkaError.state("DescribeConfigs(\(topic)): the description has no retention.ms")
        }
        return retention
    }
}
