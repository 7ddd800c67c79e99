import Essentials
import Foundation
import Kafka

/// Kafka for tests: librdkafka's mock cluster in this process, or `devbroker` as a process of its own.
public enum TestBrokers {
    /// A mock cluster in this process with the given topics (name → partitions).
    public static func mockCluster(brokers: Int = 3, topics: [String: Int]) throws -> KafkaMockCluster {
        _ = openFileLimit
        let cluster = try KafkaMockCluster(brokers: brokers)
        for (topic, partitions) in topics.sorted(by: { $0.key < $1.key }) {
            try cluster.createTopic(topic, partitions: partitions)
        }
        return cluster
    }

    /// The suites at once hold ~1,000 descriptors, and a mock broker that runs out aborts the whole test process:
    /// the soft limit is raised to the hard one (as `scripts/test.sh` does) before the first cluster, also under a
    /// bare `swift test`.
    private static let openFileLimit = OpenFileLimit.raiseToHard()

    /// Starts the built `devbroker` with `arguments` plus `--bootstrap-file`, and waits until it wrote the file.
    /// - Returns: the process (killed when released) and its bootstrap servers.
    /// - Throws: ``TestSetupError`` with devbroker's stderr when it exits or writes no bootstrap list in time.
    public static func startDevBroker(
        _ arguments: [String], bootstrapFile: URL, directory: URL, timeout: Duration = .seconds(20)
    ) async throws -> (process: ChildProcess, bootstrap: String) {
        let process = try ChildProcess(
            TestEnvironment.binary("devbroker"), arguments + ["--bootstrap-file", bootstrapFile.path],
            directory: directory)
        var bootstrap = ""
        _ = await eventually(timeout: timeout, interval: .milliseconds(100)) {
            if let text = try? String(contentsOf: bootstrapFile, encoding: .utf8), text.contains(":") {
                bootstrap = KafkaBootstrapFile(parsing: text).bootstrapServers
            }
            return !bootstrap.isEmpty || !process.isRunning
        }
        guard !bootstrap.isEmpty else {
            let why = process.isRunning ? "wrote no bootstrap file" : "exited"
            throw TestSetupError("devbroker \(why): \(process.stderr)")
        }
        return (process, bootstrap)
    }
}
