import CommandLineOptions
import Kafka

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What `storectl erase` says about Kafka (issue 38, item 6): the pipeline cannot delete a person's records from its
/// topics, so it states when the last copy of the events published up to now is gone, from each topic's
/// `retention.ms` (and `segment.ms`: Kafka deletes whole segments), as the brokers describe it.
///
/// The topics: the events' (`--topic`), the dead letters' (`--dlq-topic`) and the redrive's quarantine. Where the
/// brokers cannot describe a topic (librdkafka's mock cluster, i.e. devbroker, has no DescribeConfigs; an ACL may
/// deny it), `--topic-retention-ms` states the retention; without it the expiry is printed as unknown, never
/// guessed. Without `--brokers` nothing is asked and the statement says so.
///
/// Wiring: add ``options`` to the command's options and print ``lastCopyNotice(_:)`` after the erase.
enum KafkaRetention {
    static let options: [CommandLineOption] = [
        .value(
            "--brokers", "LIST", environment: "DVP_BROKERS",
            help: "the workers' Kafka bootstrap servers: say when the topics' copies of the person expire"),
        .value(
            "--brokers-file", "PATH", environment: "DVP_BROKERS_FILE",
            help: "read the bootstrap servers from a file (e.g. `devbroker --bootstrap-file`)"),
        .value("--topic", "NAME", environment: "DVP_TOPIC", help: "the events' topic (default daily-values)"),
        .value(
            "--dlq-topic", "NAME", environment: "DVP_DLQ_TOPIC", help: "the dead-letter topic (default <topic>.dlq)"),
        .value(
            "--topic-retention-ms", "MS", environment: "DVP_TOPIC_RETENTION_MS",
            help: """
                the topics' retention.ms when the brokers cannot describe them (devbroker's mock
                cluster cannot; -1 = kept forever); otherwise the expiry is printed as unknown
                """
        ).typed(.integer(-1...Int.max)),
        .value(
            "-X", "KEY=VALUE", repeatable: true,
            help: """
                librdkafka property for the DescribeConfigs client (SASL, TLS; env
                DVP_X_<PROPERTY>, or DVP_XFILE_<PROPERTY>=PATH for a secret in a file)
                """
        ).secret(),
    ]

    /// One topic's answer.
    struct TopicExpiry: Sendable {
        var topic: String
        /// How long a record appended now may stay (``KafkaTopicRetention/worstCaseMs``); nil: no bound, or unknown.
        var retention: KafkaTopicRetention?
        /// Where the retention came from (`the brokers`, `--topic-retention-ms`), or, without one, the whole
        /// statement (why it is unknown, or that the topic does not exist).
        var source: String

        /// The line `storectl erase` prints.
        func line(now: Date) -> String {
            guard let retention else { return "kafka \(topic): \(source)" }
            if retention.isCompacted {
                return "kafka \(topic): compacted (\(source)): a key's latest record is kept until it is replaced; "
                    + "the person's last events stay until then"
            }
            guard let bound = retention.worstCaseMs else {
                return "kafka \(topic): retention.ms -1 (\(source)): the person's events are kept until deleted"
            }
            // Whole seconds, rounded up: a bound, not a measurement.
            let expires = Date(timeIntervalSince1970: (now.timeIntervalSince1970 + Double(bound) / 1000).rounded(.up))
            return "kafka \(topic): the last copy of events published up to now expires by "
                + "\(expires.formatted(.iso8601)) (retention.ms \(retention.retentionMs ?? -1) + segment.ms "
                + "\(retention.segmentMs ?? KafkaTopicRetention.defaultSegmentMs), \(source))"
        }
    }

    /// What `storectl erase` prints about the copies Kafka still holds: ``statement(_:now:)``'s lines, or why they
    /// could not be made (a bad `--brokers-file` or `-X`: the erasure itself is done by then).
    static func lastCopyNotice(_ arguments: ParsedCommandLine) async -> String {
        do {
            return try await statement(arguments).joined(separator: "\n")
        } catch {
            return "kafka: cannot say when the topics' copies expire: \(error)"
        }
    }

    /// The lines to print after an erasure: one per topic, or one saying Kafka was not asked.
    /// - Throws: ``UsageError`` for a bad `--brokers-file`, `-X` or `--topic-retention-ms`.
    static func statement(_ arguments: ParsedCommandLine, now: Date = Date()) async throws -> [String] {
        guard arguments.value("--brokers") != nil || arguments.value("--brokers-file") != nil else {
            return [
                "kafka: not asked (no --brokers): the topics keep the person's events until their retention.ms; "
                    + "give --brokers to have the date printed"
            ]
        }
        return try await expiries(arguments).map { $0.line(now: now) }
    }

    /// Each topic's retention: the brokers' description, else `--topic-retention-ms`, else unknown.
    static func expiries(_ arguments: ParsedCommandLine) async throws -> [TopicExpiry] {
        let brokers: String =
            switch try arguments.bootstrapServers(parsingFile: KafkaBootstrapFile.naming(servers:)) {
            case .list(let servers): servers
            case .file(let file): file.bootstrapServers
            }
        var properties = arguments.environmentProperties(prefix: "DVP_X_")
        do {
            for (key, value) in try KafkaProperties.parse(arguments.all("-X")) { properties[key] = value }
        } catch {
            throw UsageError.invalid("-X", "expected key=value")
        }
        // Secrets mounted as files, as the workers read them (`DVP_XFILE_SASL_PASSWORD=PATH`).
        properties = try arguments.kafkaPropertyFiles(adding: properties)
        let stated = try arguments.integer("--topic-retention-ms", in: -1...Int.max)
        let topic = arguments.value("--topic") ?? "daily-values"
        let deadLetters = arguments.value("--dlq-topic") ?? topic + ".dlq"
        var expiries: [TopicExpiry] = []
        // Brokers that cannot describe one topic (no DescribeConfigs: the mock cluster waits for a controller until
        // the timeout) are not asked again for the next.
        var refusal: KafkaError?
        for name in [topic, deadLetters, deadLetters + ".quarantine"] {
            do throws(KafkaError) {
                if let refusal { throw refusal }
                let retention = try await KafkaTopicRetention.describe(
                    topic: name, bootstrapServers: brokers, properties: properties, timeout: .seconds(5))
                expiries.append(TopicExpiry(topic: name, retention: retention, source: "the brokers"))
            } catch {
                if error.code == .unknownTopicOrPartition {
                    expiries.append(TopicExpiry(topic: name, retention: nil, source: "no such topic: nothing kept"))
                    continue
                }
                refusal = error
                guard let stated else {
                    expiries.append(
                        TopicExpiry(
                            topic: name, retention: nil,
                            source: "expiry unknown: the brokers did not describe the topic (\(error.code.name)); "
                                + "give --topic-retention-ms"))
                    continue
                }
                expiries.append(
                    TopicExpiry(
                        topic: name, retention: KafkaTopicRetention(retentionMs: stated < 0 ? nil : Int64(stated)),
                        source: "--topic-retention-ms; the brokers did not describe it: \(error.code.name)"))
            }
        }
        return expiries
    }
}
