import CommandLineOptions
import Essentials
import Kafka
import Producer

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Where to publish: brokers, topic and raw librdkafka properties, from options first, then the environment.
///
/// Environment: `DVP_BROKERS`, `DVP_TOPIC`, and `DVP_X_<PROPERTY>` for any librdkafka property, the name
/// lower-cased with `_` turned into `.` (`DVP_X_SASL_PASSWORD=…` → `sasl.password=…`). `-X` wins over the
/// environment for the same property.
struct ConnectionOptions {
    var brokers: String?
    var brokersFile: String?
    var topic: String?
    var properties: [String] = []
    /// `DVP_X_*` properties from the environment.
    var environmentProperties: [String: String] = [:]

    static let section = CommandLineParser.Section(
        "Connection (options win over the environment):",
        [
            .value(
                "--brokers", "HOST:PORT[,…]", aliases: ["-b"], environment: "DVP_BROKERS",
                help: "bootstrap servers                     (env DVP_BROKERS)"),
            .value(
                "--brokers-file", "PATH",
                help: """
                    read the bootstrap servers from a file, e.g. the one `devbroker
                    --bootstrap-file PATH` writes
                    """),
            .value(
                "--topic", "NAME", aliases: ["-t"], environment: "DVP_TOPIC",
                help: "topic (default: daily-values)            (env DVP_TOPIC)"),
            .value(
                "-X", "KEY=VALUE", repeatable: true,
                help: """
                    librdkafka property, repeatable, e.g. -X security.protocol=SASL_SSL
                    (env DVP_X_<PROPERTY>: DVP_X_SASL_PASSWORD=… sets sasl.password)
                    """),
        ])

    init() {}

    /// Reads the connection options (and their environment twins) of a parsed command line.
    init(_ parsed: ParsedCommandLine) {
        brokers = parsed.given("--brokers")
        brokersFile = parsed.given("--brokers-file")
        topic = parsed.value("--topic")
        properties = parsed.all("-X")
        environmentProperties = parsed.environmentProperties(prefix: "DVP_X_")
        if brokers == nil, brokersFile == nil { brokers = parsed.fromEnvironment("--brokers") }
    }

    /// The topic to publish to.
    func resolvedTopic() throws(ProducerConfigurationError) -> String {
        let topic = topic ?? "daily-values"
        guard !topic.isEmpty else { throw ProducerConfigurationError(option: "--topic", rule: "must not be empty") }
        return topic
    }

    /// The producer configuration: the reliable defaults (idempotent, `acks=all`, lz4) plus pass-through
    /// properties.
    func producerConfiguration() throws(ProducerConfigurationError) -> KafkaProducerConfiguration {
        var configuration = KafkaProducerConfiguration(bootstrapServers: try resolvedBrokers())
        configuration.clientId = "daily-values-producer-cli"
        var extra = environmentProperties
        do throws(KafkaError) {
            for (key, value) in try KafkaProperties.parse(properties) { extra[key] = value }
        } catch {
            throw ProducerConfigurationError(option: "-X", rule: error.message)
        }
        configuration.extra = extra
        return configuration
    }

    // MARK: - Helpers

    private func resolvedBrokers() throws(ProducerConfigurationError) -> String {
        if let brokers { return brokers }
        if let brokersFile {
            guard let text = try? String(contentsOfFile: brokersFile, encoding: .utf8) else {
                throw ProducerConfigurationError(option: "--brokers-file", rule: "cannot read '\(brokersFile)'")
            }
            let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
            let brokers = line.trimmingWhitespace()
            guard !brokers.isEmpty else {
                throw ProducerConfigurationError(option: "--brokers-file", rule: "'\(brokersFile)' is empty")
            }
            return brokers
        }
        throw ProducerConfigurationError(
            option: "--brokers", rule: "no brokers given (use --brokers, --brokers-file or DVP_BROKERS)"
        )
    }
}
