import Foundation
import Kafka
import Producer

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

    static let help = """
        Connection (options win over the environment):
          -b, --brokers HOST:PORT[,…]  bootstrap servers                     (env DVP_BROKERS)
          --brokers-file PATH       read the bootstrap servers from a file, e.g. the one `devbroker
                                    --bootstrap-file PATH` writes
          -t, --topic NAME          topic (default: daily-values)            (env DVP_TOPIC)
          -X KEY=VALUE              librdkafka property, repeatable, e.g. -X security.protocol=SASL_SSL
                                    (env DVP_X_<PROPERTY>: DVP_X_SASL_PASSWORD=… sets sasl.password)
        """

    /// Consumes `option` if it is a connection option.
    mutating func parse(_ option: String, from arguments: inout CommandLineArguments) throws(ProducerConfigurationError)
        -> Bool
    {
        switch option {
        case "--brokers", "-b": brokers = try arguments.value(for: option)
        case "--brokers-file": brokersFile = try arguments.value(for: option)
        case "--topic", "-t": topic = try arguments.value(for: option)
        case "-X": properties.append(try arguments.value(for: option))
        default: return false
        }
        return true
    }

    /// The topic to publish to.
    func resolvedTopic(environment: [String: String]) throws(ProducerConfigurationError) -> String {
        let topic = topic ?? environment["DVP_TOPIC"] ?? "daily-values"
        guard !topic.isEmpty else { throw ProducerConfigurationError(option: "--topic", rule: "must not be empty") }
        return topic
    }

    /// The producer configuration: the reliable defaults (idempotent, `acks=all`, lz4) plus pass-through
    /// properties.
    func producerConfiguration(environment: [String: String]) throws(ProducerConfigurationError)
        -> KafkaProducerConfiguration
    {
        var configuration = KafkaProducerConfiguration(bootstrapServers: try resolvedBrokers(environment: environment))
        configuration.clientId = "daily-values-producer-cli"
        var extra = Self.environmentProperties(environment)
        do throws(KafkaError) {
            for (key, value) in try KafkaProperties.parse(properties) { extra[key] = value }
        } catch {
            throw ProducerConfigurationError(option: "-X", rule: error.message)
        }
        configuration.extra = extra
        return configuration
    }

    // MARK: - Helpers

    private func resolvedBrokers(environment: [String: String]) throws(ProducerConfigurationError) -> String {
        if let brokers { return brokers }
        if let brokersFile {
            guard let text = try? String(contentsOfFile: brokersFile, encoding: .utf8) else {
                throw ProducerConfigurationError(option: "--brokers-file", rule: "cannot read '\(brokersFile)'")
            }
            let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
            let brokers = line.trimmingCharacters(in: .whitespaces)
            guard !brokers.isEmpty else {
                throw ProducerConfigurationError(option: "--brokers-file", rule: "'\(brokersFile)' is empty")
            }
            return brokers
        }
        if let brokers = environment["DVP_BROKERS"], !brokers.isEmpty { return brokers }
        throw ProducerConfigurationError(
            option: "--brokers", rule: "no brokers given (use --brokers, --brokers-file or DVP_BROKERS)"
        )
    }

    /// `DVP_X_SASL_PASSWORD=secret` → `["sasl.password": "secret"]`.
    static func environmentProperties(_ environment: [String: String]) -> [String: String] {
        var properties: [String: String] = [:]
        for (name, value) in environment where name.hasPrefix("DVP_X_") && name.count > 6 {
            let property = name.dropFirst(6).lowercased().replacingOccurrences(of: "_", with: ".")
            properties[property] = value
        }
        return properties
    }
}
