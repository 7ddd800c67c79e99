import CommandLineOptions
import DeadLetters
import Kafka

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The options every `dlq` command shares: where the dead-letter topic is, and how to print.
extension ParsedCommandLine {
    static let connectionOptions: [CommandLineOption] = [
        .value("--brokers", "LIST", environment: "DVP_BROKERS", help: "bootstrap servers (env DVP_BROKERS)"),
        .value(
            "--brokers-file", "PATH", environment: "DVP_BROKERS_FILE",
            help: "read the bootstrap servers from a file (e.g. `devbroker --bootstrap-file`)"),
        .value(
            "--dlq-topic", "NAME", environment: "DVP_DLQ_TOPIC",
            help: "the dead-letter topic (default daily-values.dlq; env DVP_DLQ_TOPIC, as the worker's)"),
        .value(
            "--redrive-group", "NAME", environment: "DVP_REDRIVE_GROUP",
            help: """
                the redrive consumer group (default dvp-dlq-redrive; with filters
                dvp-dlq-redrive-<fingerprint of the filters>)
                """),
        .value(
            "-X", "KEY=VALUE", repeatable: true,
            help: """
                librdkafka property, repeatable (env DVP_X_<PROPERTY>: DVP_X_SASL_PASSWORD sets
                sasl.password; DVP_XFILE_<PROPERTY>=PATH reads the value from a file)
                """),
        .flag("--json", environment: "DVP_JSON", help: "print the result as one JSON object"),
        .help,
    ]

    /// The bootstrap servers, by the rule every executable shares (`bootstrapServers(parsingFile:)`).
    /// - Throws: ``UsageError`` when neither is given or the file cannot be read or names no servers.
    func brokers() throws -> String {
        switch try bootstrapServers(parsingFile: KafkaBootstrapFile.naming(servers:)) {
        case .list(let servers): servers
        case .file(let file): file.bootstrapServers
        }
    }

    /// The dead-letter topic.
    var deadLetterTopic: String { value("--dlq-topic") ?? "daily-values.dlq" }

    /// `DVP_X_*` from the environment, then `-X key=value` (which wins), then the properties read from the files
    /// named by `DVP_XFILE_*` (as the worker reads them; the chart mounts secret properties as files).
    /// - Throws: ``UsageError`` naming `-X` for a pair without `=` (its text is not echoed: it may be a secret).
    func kafkaProperties() throws -> [String: String] {
        var properties = environmentProperties(prefix: "DVP_X_")
        do {
            for (key, value) in try KafkaProperties.parse(all("-X")) { properties[key] = value }
        } catch {
            throw UsageError.invalid("-X", "expected key=value")
        }
        return try kafkaPropertyFiles(adding: properties)
    }

    /// A duration such as `7d`, `36h`, `90m`, `45s` or `604800000ms`, in milliseconds, nil when absent.
    /// - Throws: ``UsageError`` naming the option for anything else.
    func durationMs(_ name: String) throws -> Int64? {
        guard let text = value(name) else { return nil }
        let units: [(String, Int64)] = [("ms", 1), ("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1000)]
        for (suffix, factor) in units where text.hasSuffix(suffix) {
            if let n = Int64(text.dropLast(suffix.count)), n > 0, n <= Int64.max / factor { return n * factor }
            break
        }
        throw UsageError.invalid(name, "must be a positive duration such as 7d, 36h, 90m, 45s or 5000ms")
    }

    /// An RFC 3339 instant (`2026-12-01T08:00:00Z`) or a UTC day (`2026-12-01`), nil when absent.
    /// - Throws: ``UsageError`` naming the option for anything else.
    func instant(_ name: String) throws -> Date? {
        guard let text = value(name) else { return nil }
        if let date = DeadLetterView.parseInstant(text) { return date }
        if text.count == 10, let date = DeadLetterView.parseInstant(text + "T00:00:00Z") { return date }
        throw UsageError.invalid(name, "must be an RFC 3339 instant (2026-12-01T08:00:00Z) or a day (2026-12-01)")
    }
}
