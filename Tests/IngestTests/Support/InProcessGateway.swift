import Foundation
import IngestAuth
import IngestGateway
import Kafka
import Observability
import TestSupport

/// The gateway in this process (``IngestService``, the same one `ingest` runs) on librdkafka's mock cluster, with a
/// ``FixedTokenVerifier``: for the authentication tests, which need a verifier the `ingest` binary cannot have yet.
final class InProcessGateway: @unchecked Sendable {
    let cluster: KafkaMockCluster
    let service: IngestService
    let directory: URL
    private let running: Task<Void, Never>

    var url: String { "http://127.0.0.1:\(service.port)" }
    var adminURL: String { "http://127.0.0.1:\(service.adminPort)" }
    var topic: String { service.configuration.topic }

    /// Starts the gateway and waits until it is ready.
    init(verifier: FixedTokenVerifier, configure: (inout IngestConfiguration) -> Void = { _ in }) async throws {
        cluster = try TestBrokers.mockCluster(topics: ["daily-values": 4])
        var configuration = IngestConfiguration(brokers: cluster.bootstrapServers)
        configuration.httpAddress = "127.0.0.1"
        configuration.httpPort = 0
        configuration.adminAddress = "127.0.0.1"
        configuration.adminPort = 0
        configure(&configuration)
        service = try IngestService(
            configuration: configuration, authentication: .verified(Authenticator([verifier])),
            logger: Logger(level: .warning))
        directory = try TestEnvironment.temporaryDirectory("dvp-ingest-inprocess")
        let service = self.service
        running = Task { await service.run() }
        let adminURL = self.adminURL
        let directory = self.directory
        let ready = await eventually(timeout: .seconds(20), interval: .milliseconds(100)) {
            (try? await CurlResponse.run(["\(adminURL)/readyz"], directory: directory).status) == 200
        }
        guard ready else { throw TestSetupError("the in-process gateway never became ready") }
    }

    /// Runs `body` with a started gateway and stops it afterwards, whether `body` threw or not.
    static func run(
        verifier: FixedTokenVerifier, configure: (inout IngestConfiguration) -> Void = { _ in },
        _ body: (InProcessGateway) async throws -> Void
    ) async throws {
        let gateway = try await InProcessGateway(verifier: verifier, configure: configure)
        do {
            try await body(gateway)
        } catch {
            await gateway.stop()
            throw error
        }
        await gateway.stop()
    }

    /// Stops the gateway gracefully and waits until it has.
    func stop() async {
        service.requestStop()
        await running.value
        try? FileManager.default.removeItem(at: directory)
    }

    func curl(_ arguments: [String]) async throws -> CurlResponse {
        try await CurlResponse.run(arguments, directory: directory)
    }

    /// Every record of the topic.
    func records() async throws -> [KafkaMessage] {
        try await KafkaConsumer.readAll(topic: topic, bootstrapServers: cluster.bootstrapServers, timeout: .seconds(30))
    }

    func file(_ name: String, _ text: String) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url
    }
}
