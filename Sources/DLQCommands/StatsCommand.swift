import CommandLineOptions
import DeadLetters
import HTTPClient
import Kafka

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// `dlq stats`: counts of the dead letters by class, stage, origin, worker version and time window, and the
/// oldest unread one's age against the topic's retention. Prints no value, key or patient id.
enum StatsCommand {
    static let options =
        ParsedCommandLine.connectionOptions + [
            .value(
                "--retention", "DURATION", environment: "DVP_DLQ_RETENTION",
                help: """
                    the dead-letter topic's retention, e.g. 14d, used when the brokers cannot describe the
                    topic's retention.ms (default then: Kafka's 7d, reported as assumed)
                    """),
            .value("--window", "hour|day", help: "the time window of the per-window counts (default day)"),
            .value(
                "--prometheus-file", "PATH", environment: "DVP_DLQ_PROMETHEUS_FILE",
                help: "also write the figures in Prometheus' text format there (replaced atomically)"),
            .value(
                "--pushgateway", "URL", environment: "DVP_DLQ_PUSHGATEWAY",
                help: "also PUT the figures to a Prometheus Pushgateway (URL/metrics/job/dvp-dlq-stats)"),
        ]

    static func run(_ arguments: ParsedCommandLine) async throws -> Int32 {
        let brokers = try arguments.brokers()
        let properties = try arguments.kafkaProperties()
        let topic = arguments.deadLetterTopic
        let group = arguments.value("--redrive-group") ?? RedriveCommand.defaultGroup
        guard let window = DeadLetterStatistics.Window(rawValue: arguments.value("--window") ?? "day") else {
            throw UsageError.invalid("--window", "must be hour or day")
        }
        var statistics = DeadLetterStatistics(topic: topic, window: window)
        let fallback = try arguments.durationMs("--retention")
        let pushgateway = try arguments.value("--pushgateway").map(pushURL)
        let (committed, configuration) = try await brokerView(
            topic: topic, group: group, brokers: brokers, properties: properties)
        switch configuration {
        case .success(let entries):
            if let retention = entries["retention.ms"].flatMap({ Int64($0) }) {
                statistics.retentionMs = retention
                statistics.retentionSource = .broker
            } else {
                statistics.retentionNote = "the topic's description has no retention.ms"
            }
        case .failure(let error):
            statistics.retentionNote = "the brokers did not describe the topic: \(error.code.name)"
        }
        if statistics.retentionSource != .broker, let fallback {
            statistics.retentionMs = fallback
            statistics.retentionSource = .option
        }
        // Streamed: each record is counted and dropped, so memory does not grow with the topic; the read gives up
        // only after 60 s without a record, however long the whole topic takes.
        try await KafkaConsumer.forEachRecord(
            topic: topic, bootstrapServers: brokers, extra: properties, idleTimeout: .seconds(60)
        ) { record in
            statistics.add(DeadLetterView(record), isUnread: record.offset >= (committed[record.partition] ?? 0))
        }
        let now = Date()
        print(
            arguments.isSet("--json")
                ? statistics.json(now: now, group: group) : statistics.plainText(now: now, group: group))
        if let path = arguments.value("--prometheus-file") {
            try writeAtomically(statistics.prometheusText(now: now, group: group), to: path)
        }
        if let pushgateway {
            try await push(statistics.prometheusText(now: now, group: group), to: pushgateway)
        }
        return 0
    }

    /// The `dvp-dlq-stats` job's URL on the Pushgateway at `url`.
    /// - Throws: ``UsageError`` naming `--pushgateway` unless it is an http(s) URL.
    static func pushURL(_ url: String) throws -> String {
        guard url.hasPrefix("http://") || url.hasPrefix("https://") else {
            throw UsageError.invalid("--pushgateway", "must be an http:// or https:// URL")
        }
        return (url.hasSuffix("/") ? String(url.dropLast()) : url) + "/metrics/job/dvp-dlq-stats"
    }

    /// Replaces the `dvp-dlq-stats` job's metrics on a Pushgateway (its alerts then read them like any scrape).
    static func push(_ text: String, to target: String) async throws {
        let client = try HTTPClient(HTTPClientConfiguration())
        let response: HTTPResponse
        do {
            response = try await client.send(
                HTTPRequest(
                    method: "PUT", url: target, headers: [("Content-Type", "text/plain; version=0.0.4")],
                    body: Array(text.utf8)))
        } catch {
            await client.close()
            throw error
        }
        await client.close()
        guard (200..<300).contains(response.status) else {
            throw PushError(status: response.status)
        }
    }

    /// The Pushgateway refused the figures.
    struct PushError: Error, CustomStringConvertible {
        var status: Int
        var description: String { "--pushgateway: the Pushgateway answered HTTP \(status)" }
    }

    /// The group's committed offset per partition (partitions without a commit are left out), and the topic's
    /// configuration as the brokers describe it (or why they did not).
    static func brokerView(topic: String, group: String, brokers: String, properties: [String: String])
        async throws -> ([Int32: Int64], Result<[String: String], KafkaError>)
    {
        var configuration = KafkaConsumerConfiguration(bootstrapServers: brokers, groupId: group)
        configuration.statisticsIntervalMs = 0
        configuration.extra = properties
        let consumer = try KafkaConsumer(configuration: configuration)
        do {
            let count = try await consumer.partitionCount(topic: topic, timeout: .seconds(30))
            let partitions = (0..<Int32(count)).map { KafkaTopicPartition(topic: topic, partition: $0) }
            var offsets: [Int32: Int64] = [:]
            for entry in try await consumer.committed(partitions, timeout: .seconds(30)) where entry.offset >= 0 {
                offsets[entry.partition] = entry.offset
            }
            let configuration: Result<[String: String], KafkaError>
            do throws(KafkaError) {
                configuration = .success(try await consumer.topicConfiguration(topic, timeout: .seconds(5)))
            } catch {
                configuration = .failure(error)
            }
            await consumer.close(timeout: .seconds(10))
            return (offsets, configuration)
        } catch {
            await consumer.close(timeout: .seconds(10))
            throw error
        }
    }

    /// Writes `text` to a temporary file beside `path`, then renames it over `path` (a collector never reads half).
    static func writeAtomically(_ text: String, to path: String) throws {
        let temporary = path + ".tmp"
        try Data(text.utf8).write(to: URL(fileURLWithPath: temporary))
        if rename(temporary, path) != 0 {
            throw UsageError.invalid("--prometheus-file", "cannot replace the file (errno \(errno))")
        }
    }
}
