import Foundation
import Kafka
import TestSupport

/// Real processes for end-to-end worker tests: the embedded broker, the producer, workers and `storectl`.
///
/// Each harness owns a temporary directory and kills every process it started when it is released.
final class PipelineHarness: @unchecked Sendable {
    let directory: URL
    let topic = "daily-values"
    let deadLetterTopic = "daily-values.dlq"
    let partitions: Int
    private(set) var broker: ChildProcess?
    private(set) var bootstrap = ""
    private var children: [ChildProcess] = []

    /// Test-friendly consumer-group timings for the mock cluster (rebalances wait session.timeout − 1 s there).
    static let groupTimings = ["-X", "session.timeout.ms=6000", "-X", "heartbeat.interval.ms=1000"]

    init(partitions: Int = 6) throws {
        self.partitions = partitions
        directory = try TestEnvironment.temporaryDirectory("dvp-worker-test")
    }

    deinit {
        children.forEach { $0.terminate() }
        broker?.terminate()
        try? FileManager.default.removeItem(at: directory)
    }

    var bootstrapFile: URL { directory.appendingPathComponent("bootstrap") }

    /// Starts `devbroker` with the topic and its dead-letter topic and waits for its bootstrap file.
    func startBroker() async throws {
        (broker, bootstrap) = try await TestBrokers.startDevBroker(
            ["--brokers", "3", "--topic", "\(topic):\(partitions)", "--topic", "\(deadLetterTopic):2",
             "--control", controlFIFO.path],
            bootstrapFile: bootstrapFile, directory: directory)
    }

    /// Generates a stream with `producer generate` and returns the events file and the oracle.
    func generate(patients: Int, days: Int, seed: Int, extra: [String] = []) async throws -> (events: URL, oracle: Oracle) {
        let events = directory.appendingPathComponent("events-\(seed).jsonl")
        let oracle = directory.appendingPathComponent("oracle-\(seed).tsv")
        let result = try await runCommand(
            TestEnvironment.binary("producer"),
            ["generate", "--patients", "\(patients)", "--days", "\(days)", "--seed", "\(seed)",
             "--start-day", "2026-09-01", "--out", events.path, "--oracle-out", oracle.path] + extra)
        guard result.status == 0 else { throw TestSetupError("producer generate failed: \(result.stderr)") }
        return (events, try Oracle(contentsOf: oracle))
    }

    /// Publishes a file as-is (invalid lines included) and waits for every acknowledgement.
    func publish(_ events: URL, extra: [String] = []) async throws {
        let result = try await runCommand(
            TestEnvironment.binary("producer"),
            ["publish", "--brokers", bootstrap, "--topic", topic, "--raw", events.path] + extra)
        guard result.status == 0 else { throw TestSetupError("producer publish failed: \(result.stderr)") }
    }

    /// Starts a worker process (`binary`: the shipped `worker`, or the test worker `dvp-fault-worker`);
    /// `--until-caught-up` unless `untilCaughtUp` is false.
    func startWorker(store: String, group: String = "workers", untilCaughtUp: Bool = true,
                     extra: [String] = [], name: String = "worker", environment: [String: String] = [:],
                     binary: String = "worker") throws
        -> ChildProcess
    {
        var arguments = ["--brokers", bootstrap, "--topic", topic, "--group", group, "--store", store,
                         "--http-port", "0", "--http-address", "127.0.0.1", "--batch-ms", "50", "--worker-id", name]
        arguments += Self.groupTimings + extra
        if untilCaughtUp { arguments.append("--until-caught-up") }
        let process = try ChildProcess(TestEnvironment.binary(binary), arguments, directory: directory, name: name,
                                       environment: ["DVP_ID_KEY": "test-id-key-0123456789abcdef"].merging(environment) { $1 })
        children.append(process)
        return process
    }

    /// `identity key → stored version` from `storectl dump`.
    func storeDump(_ store: String) async throws -> [String: Int64] {
        let result = try await runCommand(TestEnvironment.binary("storectl"), ["dump", "--store", store])
        guard result.status == 0 else { throw TestSetupError("storectl dump failed: \(result.stderr)") }
        var out: [String: Int64] = [:]
        for line in result.stdout.split(separator: "\n") {
            let fields = line.split(separator: "\t")
            if fields.count >= 2, let v = Int64(fields[1]) { out[String(fields[0])] = v }
        }
        return out
    }

    /// Every record of the dead-letter topic.
    func deadLetters() async throws -> [KafkaMessage] {
        try await KafkaConsumer.readAll(topic: deadLetterTopic, bootstrapServers: bootstrap, timeout: .seconds(30))
    }

    /// The distinct `(original partition, original offset)` pairs in the dead-letter topic.
    func deadLetterOrigins() async throws -> Set<String> {
        Set(try await deadLetters().map { record in
            let headers = Dictionary(
                record.headers.map { ($0.key, String(decoding: $0.value ?? [], as: UTF8.self)) }, uniquingKeysWith: { a, _ in a })
            return "\(headers["__connect.errors.partition"] ?? "?")@\(headers["__connect.errors.offset"] ?? "?")"
        })
    }

    /// Per partition of the main topic: (committed offset of `group`, end offset).
    func committedVersusEnd(group: String) async throws -> [(partition: Int32, committed: Int64, end: Int64)] {
        let all = try await KafkaConsumer.readAll(topic: topic, bootstrapServers: bootstrap, timeout: .seconds(60))
        var ends: [Int32: Int64] = [:]
        for m in all { ends[m.partition] = max(ends[m.partition] ?? 0, m.offset + 1) }
        var configuration = KafkaConsumerConfiguration(bootstrapServers: bootstrap, groupId: group)
        configuration.statisticsIntervalMs = 0
        let consumer = try KafkaConsumer(configuration: configuration)
        let partitions = (0..<Int32(self.partitions)).map { KafkaTopicPartition(topic: topic, partition: $0) }
        let committed = try await consumer.committed(partitions, timeout: .seconds(10))
        await consumer.close(timeout: .seconds(10))
        return committed.map { ($0.partition, $0.offset, ends[$0.partition] ?? 0) }
    }
}

/// Parses the worker's `--until-caught-up` summary (stdout) into counts by line label.
func parseSummary(_ text: String) -> [String: Int64] {
    var out: [String: Int64] = [:]
    for line in text.split(separator: "\n") {
        let words = line.split(separator: " ", omittingEmptySubsequences: true)
        guard words.count >= 2, let n = Int64(words[1]) else { continue }
        out[String(words[0])] = n
    }
    return out
}
