/// Typed producer configuration rendered to librdkafka properties and validated before the client exists.
///
/// Defaults follow the reliability recipe: idempotence on (which implies `acks=all`, unlimited retries and
/// ordering per partition), `lz4` compression, a short linger.
public struct KafkaProducerConfiguration: Sendable, Hashable {
    /// Compression codec (`compression.codec`), applied per batch.
    public enum Compression: String, Sendable, Hashable, CaseIterable {
        case none, gzip, snappy, lz4, zstd
    }

    /// Comma-separated `host:port` list (`bootstrap.servers`).
    public var bootstrapServers: String
    /// `client.id`, shown in broker logs.
    public var clientId: String = "daily-values-producer"
    /// `enable.idempotence`: no duplicates or reordering from internal retries; forces `acks=all`.
    public var enableIdempotence: Bool = true
    /// `acks` when idempotence is off: -1 (all in-sync replicas), 0 or 1. Must be -1 with idempotence.
    public var acks: Int = -1
    public var compression: Compression = .lz4
    /// `linger.ms`: how long to wait to fill a batch.
    public var lingerMs: Int = 5
    /// `message.timeout.ms`: how long librdkafka keeps trying to deliver a record before reporting failure.
    public var messageTimeoutMs: Int = 300_000
    /// `batch.size` in bytes.
    public var batchSizeBytes: Int = 1_000_000
    /// `message.max.bytes`: the largest record (key, value, headers and framing) the producer sends; larger ones
    /// fail with ``KafkaError/Code/messageSizeTooLarge``.
    public var messageMaxBytes: Int = 1_000_000
    /// `batch.num.messages`.
    public var batchMaxMessages: Int = 10_000
    /// `queue.buffering.max.messages`: local queue bound; a full queue makes `send` back off, never drop.
    public var queueMaxMessages: Int = 100_000
    /// `queue.buffering.max.kbytes`: the local queue's bound on the records' key and value bytes, in KiB (librdkafka's
    /// default: 1 GiB); a full queue makes `send` back off (the completion-based `send` fails the record instead).
    public var queueMaxKilobytes: Int = 1_048_576
    /// Raw librdkafka properties applied last (SASL/TLS, tuning), like kcat `-X`.
    public var extra: [String: String] = [:]

    /// Creates the value from its fields.
    public init(bootstrapServers: String) {
        self.bootstrapServers = bootstrapServers
    }

    // MARK: - Rendering

    /// The librdkafka properties in the order they are applied (typed first, then ``extra`` sorted by key).
    /// - Throws: ``KafkaError`` of kind ``KafkaError/Kind/configuration`` naming the field and the rule.
    public func properties() throws(KafkaError) -> [(key: String, value: String)] {
        guard !bootstrapServers.trimmingWhitespaceIsEmpty else {
            throw .configuration(property: "bootstrap.servers", "bootstrapServers must not be empty")
        }
        guard !enableIdempotence || acks == -1 else {
            throw .configuration(property: "acks", "acks must be -1 (all) when idempotence is enabled, got \(acks)")
        }
        guard [-1, 0, 1].contains(acks) else {
            throw .configuration(property: "acks", "acks must be -1, 0 or 1, got \(acks)")
        }
        let typed: [(key: String, value: String)] = [
            ("bootstrap.servers", bootstrapServers),
            ("client.id", clientId),
            ("enable.idempotence", String(enableIdempotence)),
            ("acks", String(acks)),
            ("compression.codec", compression.rawValue),
            ("linger.ms", String(lingerMs)),
            ("message.timeout.ms", String(messageTimeoutMs)),
            ("batch.size", String(batchSizeBytes)),
            ("batch.num.messages", String(batchMaxMessages)),
            ("message.max.bytes", String(messageMaxBytes)),
            ("queue.buffering.max.messages", String(queueMaxMessages)),
            ("queue.buffering.max.kbytes", String(queueMaxKilobytes)),
        ]
        return typed + extra.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value) }
    }
}

extension String {
    var trimmingWhitespaceIsEmpty: Bool { allSatisfy(\.isWhitespace) }
}
