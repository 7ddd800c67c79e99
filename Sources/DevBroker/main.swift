import CommandLineOptions
import Essentials
import Kafka
import Observability
import ServiceLifecycle

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

// devbroker: librdkafka's mock Kafka cluster as a development/test process. See `devbroker --help`.

CommandLineTool.answerOptionTableRequest(
    Array(CommandLine.arguments.dropFirst()), program: "devbroker", parser: DevBrokerOptions.parser)
let options: DevBrokerOptions = CommandLineTool.parseOrExit(
    "devbroker", help: DevBrokerOptions.help, usageHint: DevBrokerOptions.help
) { try DevBrokerOptions.parse(Array(CommandLine.arguments.dropFirst())) }

// A mock broker that runs out of descriptors aborts (librdkafka 2.0.2 asserts when it cannot re-open a listener).
OpenFileLimit.raiseToHard()

let cluster: KafkaMockCluster
do {
    cluster = try KafkaMockCluster(brokers: options.brokers)
    for topic in options.topics {
        try cluster.createTopic(topic.name, partitions: topic.partitions, replicationFactor: min(3, options.brokers))
    }
} catch {
    StandardError.print("devbroker: \(error)")
    exit(1)
}
if cluster.noDelayBrokers < options.brokers {
    StandardError.print(
        "devbroker: warning: TCP_NODELAY set on \(cluster.noDelayBrokers) of \(options.brokers) brokers; the others "
            + "answer with Nagle's algorithm on (40 ms stalls)")
}

if let path = options.bootstrapFile {
    do {
        let file = KafkaBootstrapFile(bootstrapServers: cluster.bootstrapServers, isDevelopmentBroker: true)
        try Data(file.text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    } catch {
        StandardError.print("devbroker: cannot write bootstrap file \(path): \(error)")
        exit(1)
    }
}
if let control = options.control {
    do {
        try ControlChannel.start(control, cluster: cluster)
    } catch {
        StandardError.print("devbroker: \(error.message)")
        exit(1)
    }
}
let topicList = options.topics.map { "\($0.name):\($0.partitions)" }.joined(separator: " ")
DevBrokerOutput.line("bootstrap \(cluster.bootstrapServers)")
DevBrokerOutput.line(
    "devbroker: \(options.brokers) broker(s), topics \(topicList); in-memory only, development/test use")

// MARK: - Run until SIGTERM / SIGINT

// Nothing to drain: the stop removes the FIFO and exits 0 at once (the deadline only bounds that).
let group = ServiceGroup(
    configuration: ServiceGroupConfiguration(
        services: [DevBrokerService(control: options.control)], signals: await SignalStream.make(),
        gracefulShutdownTimeout: .seconds(5), logger: Logger(level: .error)))
await ServiceProcess.runAndExit(group, program: "devbroker", logger: Logger(level: .error)) { _ in 1 }
