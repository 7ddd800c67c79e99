/// Typed consumer configuration rendered to librdkafka properties and validated before the client exists.
///
/// The at-least-once recipe is fixed: `enable.auto.offset.store=false` (the app stores `offset + 1` only after
/// its work is durable, via ``KafkaConsumer/complete(_:)`` for a batch, or ``KafkaConsumer/storeOffsets(after:)``) and `enable.auto.commit=true` (librdkafka
/// commits what was stored every ``autoCommitIntervalMs``). ``extra`` may not override these two.
public struct KafkaConsumerConfiguration: Sendable, Hashable {
    /// `auto.offset.reset`: where to start when the group has no committed offset (or it is out of range).
    public enum AutoOffsetReset: String, Sendable, Hashable {
        case earliest, latest
        /// Report `_AUTO_OFFSET_RESET` as a consumer error instead of resetting silently.
        case error
    }

    /// `partition.assignment.strategy`. Cooperative and eager strategies must not be mixed in one group.
    public enum AssignmentStrategy: String, Sendable, Hashable {
        case cooperativeSticky = "cooperative-sticky"
        case range
        case roundRobin = "roundrobin"
    }

    /// Properties the recipe fixes; ``extra`` may not set them.
    public static let fixedProperties: [String: String] = [
        "enable.auto.offset.store": "false",
        "enable.auto.commit": "true",
    ]

    /// Comma-separated `host:port` list (`bootstrap.servers`).
    public var bootstrapServers: String
    /// `group.id`. librdkafka 2.0.2 needs one even for manual ``KafkaConsumer/assign(_:)`` (no group is joined
    /// then, and nothing is committed unless offsets are stored).
    public var groupId: String
    public var clientId: String = "daily-values-consumer"
    public var autoOffsetReset: AutoOffsetReset = .earliest
    public var assignmentStrategy: AssignmentStrategy = .cooperativeSticky
    /// `session.timeout.ms` (use ≈6000 against the mock cluster, whose rebalances wait `session − 1000` ms).
    public var sessionTimeoutMs: Int = 45_000
    public var heartbeatIntervalMs: Int = 3_000
    /// `max.poll.interval.ms`; includes the time a rebalance callback blocks (the handler and ``revokeWait``).
    public var maxPollIntervalMs: Int = 300_000
    /// `auto.commit.interval.ms`: the crash redelivery window for stored offsets.
    public var autoCommitIntervalMs: Int = 5_000
    /// `enable.partition.eof`: emit ``KafkaConsumerEvent/partitionEOF(topic:partition:offset:)`` events.
    public var enablePartitionEOF: Bool = false
    /// `statistics.interval.ms` (0 disables): source of ``KafkaConsumer/partitionStatistics()`` (lag, log start).
    public var statisticsIntervalMs: Int = 15_000
    /// `fetch.max.bytes`, `nil` for librdkafka's default. Must cover the largest record the broker accepts.
    public var fetchMaxBytes: Int?
    /// `max.partition.fetch.bytes`, `nil` for librdkafka's default.
    public var maxPartitionFetchBytes: Int?
    /// `receive.message.max.bytes`, `nil` for librdkafka's default (must exceed `fetch.max.bytes` + 512).
    public var receiveMessageMaxBytes: Int?
    /// Flow control (wrapper, not librdkafka): when this many records are buffered but not yet taken from
    /// ``KafkaConsumer/events``, fetching of every assigned partition is paused until half of them are taken.
    public var maxBufferedMessages: Int = 1_000
    /// How long a (non-lost) revoke waits, on the poll thread, for the batches in flight of the revoked partitions
    /// (``KafkaConsumer/nextBatch(upTo:window:idleTimeout:)``) to complete or be abandoned, so that their offsets
    /// are stored before the consumer commits and hands the partitions over. Counts against `max.poll.interval.ms`.
    public var revokeWait: Duration = .seconds(10)
    /// Backfill from a point in time: newly assigned partitions that have no committed offset start at the first
    /// record whose timestamp is at or after this (ms since the epoch), found with `rd_kafka_offsets_for_times`.
    /// Partitions the broker has no answer for (no such record, or no timestamp index — like the mock cluster) start
    /// per ``autoOffsetReset`` and are reported as an error event. `nil`: committed offsets / ``autoOffsetReset``.
    public var startTimestampMs: Int64?
    /// Raw librdkafka properties applied last (SASL/TLS, tuning), like kcat `-X`.
    public var extra: [String: String] = [:]

    /// Creates the value from its fields.
    public init(bootstrapServers: String, groupId: String) {
        self.bootstrapServers = bootstrapServers
        self.groupId = groupId
    }

    // MARK: - Rendering

    /// The librdkafka properties in the order they are applied (typed first, then ``extra`` sorted by key).
    /// - Throws: ``KafkaError`` of kind ``KafkaError/Kind/configuration`` naming the field and the rule.
    public func properties() throws(KafkaError) -> [(key: String, value: String)] {
        guard !bootstrapServers.trimmingWhitespaceIsEmpty else {
            throw .configuration(property: "bootstrap.servers", "bootstrapServers must not be empty")
        }
        guard !groupId.trimmingWhitespaceIsEmpty else {
            throw .configuration(property: "group.id", "groupId must not be empty")
        }
        guard maxBufferedMessages >= 1 else {
            throw .configuration(property: "maxBufferedMessages", "must be at least 1, got \(maxBufferedMessages)")
        }
        for key in extra.keys.sorted() where Self.fixedProperties[key] != nil {
            throw .configuration(property: key, "'\(key)' is fixed by the at-least-once recipe and cannot be set")
        }
        var typed: [(key: String, value: String)] = [
            ("bootstrap.servers", bootstrapServers),
            ("group.id", groupId),
            ("client.id", clientId),
            ("auto.offset.reset", autoOffsetReset.rawValue),
            ("partition.assignment.strategy", assignmentStrategy.rawValue),
            ("session.timeout.ms", String(sessionTimeoutMs)),
            ("heartbeat.interval.ms", String(heartbeatIntervalMs)),
            ("max.poll.interval.ms", String(maxPollIntervalMs)),
            ("auto.commit.interval.ms", String(autoCommitIntervalMs)),
            ("enable.partition.eof", String(enablePartitionEOF)),
            ("statistics.interval.ms", String(statisticsIntervalMs)),
        ]
        if let fetchMaxBytes { typed.append(("fetch.max.bytes", String(fetchMaxBytes))) }
        if let maxPartitionFetchBytes { typed.append(("max.partition.fetch.bytes", String(maxPartitionFetchBytes))) }
        if let receiveMessageMaxBytes { typed.append(("receive.message.max.bytes", String(receiveMessageMaxBytes))) }
        typed += Self.fixedProperties.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value) }
        return typed + extra.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value) }
    }
}
