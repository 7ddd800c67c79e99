import Foundation
import Kafka
import TestSupport

/// Real processes for the gateway's tests: the embedded broker (`devbroker`, with its fault-control FIFO) and an
/// `ingest` process publishing to it, in a temporary directory. Every process is killed when the stack is released.
final class GatewayStack: @unchecked Sendable {
    let directory: URL
    let topic = "daily-values"
    let partitions: Int
    private(set) var broker: ChildProcess?
    private(set) var bootstrap = ""
    private(set) var gateway: ChildProcess?
    /// The gateway's bound port.
    private(set) var port = 0
    /// Its admin listener's bound port: the probes and `/metrics`.
    private(set) var adminPort = 0

    init(partitions: Int = 6) throws {
        self.partitions = partitions
        directory = try TestEnvironment.temporaryDirectory("dvp-ingest-test")
    }

    deinit {
        gateway?.terminate()
        broker?.terminate()
        try? FileManager.default.removeItem(at: directory)
    }

    var bootstrapFile: URL { directory.appendingPathComponent("bootstrap") }
    var controlFIFO: URL { directory.appendingPathComponent("control") }
    var url: String { "http://127.0.0.1:\(port)" }
    var adminURL: String { "http://127.0.0.1:\(adminPort)" }

    /// Starts `devbroker` (3 brokers) with the topic and waits for its bootstrap file.
    func startBroker() async throws {
        (broker, bootstrap) = try await TestBrokers.startDevBroker(
            [
                "--brokers", "3", "--topic", "\(topic):\(partitions)", "--topic", "\(topic).dlq:1",
                "--control", controlFIFO.path,
            ],
            bootstrapFile: bootstrapFile, directory: directory)
    }

    /// Starts `ingest --brokers-file … --http-port 0` with `arguments` and waits until it listens and is ready.
    /// `launcher` (a program and its arguments, e.g. `prlimit --nofile=…`) runs it when given; it must exec it.
    func startGateway(
        _ arguments: [String], environment: [String: String] = [:], launcher: [String] = []
    ) async throws {
        let command =
            launcher + [TestEnvironment.binary("ingest")] + [
                "--brokers-file", bootstrapFile.path, "--http-address", "127.0.0.1", "--http-port", "0",
                "--admin-address", "127.0.0.1", "--admin-port", "0",
            ] + arguments
        let process = try ChildProcess(
            command[0], Array(command.dropFirst()), directory: directory, name: "ingest", environment: environment)
        gateway = process
        _ = await process.waitForStderr(timeout: .seconds(20)) { Self.listeningPort($0) != nil || !process.isRunning }
        guard let port = Self.listeningPort(process.stderr),
            let adminPort = Self.listeningPort(process.stderr, "admin_port")
        else {
            throw TestSetupError("ingest did not start: \(process.stderr.suffix(2000))")
        }
        self.port = port
        self.adminPort = adminPort
        let ready = await eventually(timeout: .seconds(20), interval: .milliseconds(100)) {
            (try? await self.curl(["\(self.adminURL)/readyz"]).status) == 200
        }
        guard ready else { throw TestSetupError("ingest never became ready: \(process.stderr.suffix(2000))") }
    }

    /// Sends one fault-injection command to the broker (`down 1`, `rtt -1 2000`, …).
    @discardableResult
    func control(_ command: String) async throws -> String {
        guard let broker else { throw TestSetupError("control '\(command)': the broker is not running") }
        return try await DevBrokerControl.send(command, fifo: controlFIFO, broker: broker)
    }

    /// Runs curl against the gateway.
    func curl(_ arguments: [String]) async throws -> CurlResponse {
        try await CurlResponse.run(arguments, directory: directory)
    }

    /// Whether `/metrics` comes to contain `line` within `timeout` (polled every 50 ms): a test waits for the
    /// gateway's own state (a request admitted, every slot given back) rather than sleeping a fixed time.
    func metricsEventually(contain line: String, timeout: Duration = .seconds(20)) async -> Bool {
        await eventually(timeout: timeout, interval: .milliseconds(50)) {
            (try? await self.curl(["\(self.adminURL)/metrics"]).text)?.contains(line) == true
        }
    }

    /// The `/metrics` line starting with `prefix` (e.g. `"dvp_ingest_decoded_bytes_total "`), nil when absent.
    func metricsLine(startingWith prefix: String) async -> String? {
        (try? await curl(["\(adminURL)/metrics"]).text)?.split(separator: "\n").first { $0.hasPrefix(prefix) }
            .map(String.init)
    }

    /// Every record of the topic, ordered by partition and offset.
    func records() async throws -> [KafkaMessage] {
        try await KafkaConsumer.readAll(topic: topic, bootstrapServers: bootstrap, timeout: .seconds(30))
    }

    /// A file in the stack's directory holding `text`.
    func file(_ name: String, _ text: String) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url
    }

    /// The port of the gateway's "listening" log line in `stderr`.
    static func listeningPort(_ stderr: String, _ field: String = "port") -> Int? {
        for line in stderr.split(separator: "\n") where line.contains("\"ingest gateway listening\"") {
            let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
            if let port = object?[field] as? Int { return port }
        }
        return nil
    }
}
