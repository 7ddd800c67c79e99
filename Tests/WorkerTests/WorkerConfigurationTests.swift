
import FHIRServerStore
import Foundation
import HTTPClient
import Kafka
import Observability
import StoreCore
import Testing
@testable import WorkerCore

@Suite("Worker configuration")
struct WorkerConfigurationTests {
    @Test("Flags win over environment; environment fills the rest; defaults apply")
    func flagsEnvironmentDefaults() throws {
        let config = try #require(
            try WorkerConfiguration.parse(
                ["--brokers", "k1:9092", "--batch-size=250", "-X", "sasl.mechanism=PLAIN", "--until-caught-up"],
                environment: ["DVP_BROKERS": "ignored:1", "DVP_TOPIC": "dv", "DVP_BATCH_MS": "40",
                              "DVP_X_SASL_PASSWORD": "secret", "DVP_ID_KEY": "0123456789abcdef"]))
        #expect(config.brokers == "k1:9092")
        #expect(config.topic == "dv")
        #expect(config.dlqTopic == "dv.dlq")
        #expect(config.batchSize == 250)
        #expect(config.batchMilliseconds == 40)
        #expect(config.untilCaughtUp)
        #expect(config.kafkaProperties == ["sasl.mechanism": "PLAIN", "sasl.password": "secret"])
        #expect(!config.usesDevelopmentIDKey)
        #expect(config.group == "daily-values-worker")
        #expect(config.store == "sqlite:daily-values.sqlite")
        #expect(config.storeTimeoutSeconds == 40)
    }

    @Test("--store-timeout bounds each PostgreSQL round trip")
    func storeTimeout() throws {
        let config = try #require(try WorkerConfiguration.parse(
            ["--brokers", "b:1", "--store-timeout", "2.5", "--allow-development-key"], environment: [:]))
        #expect(config.storeTimeoutSeconds == 2.5)
        let fromEnvironment = try #require(try WorkerConfiguration.parse(
            ["--brokers", "b:1", "--allow-development-key"], environment: ["DVP_STORE_TIMEOUT": "7"]))
        #expect(fromEnvironment.storeTimeoutSeconds == 7)
    }

    @Test("--retraction-mode (or DVP_RETRACTION_MODE): entered-in-error by default, or delete")
    func retractionMode() throws {
        let base = ["--brokers", "b:1", "--allow-development-key"]
        #expect(try WorkerConfiguration.parse(base, environment: [:])?.retractionMode == .enteredInError)
        #expect(try WorkerConfiguration.parse(base + ["--retraction-mode", "delete"], environment: [:])?
            .retractionMode == .delete)
        #expect(try WorkerConfiguration.parse(base, environment: ["DVP_RETRACTION_MODE": "delete"])?
            .retractionMode == .delete)
        #expect(try WorkerConfiguration.parse(
            base + ["--retraction-mode", "entered-in-error"], environment: ["DVP_RETRACTION_MODE": "delete"])?
            .retractionMode == .enteredInError)
    }

    @Test("--progress-interval (or DVP_PROGRESS_INTERVAL): default 10 s, 0 disables, negative is refused")
    func progressInterval() throws {
        let base = ["--brokers", "b:1", "--allow-development-key", "--until-caught-up"]
        #expect(try WorkerConfiguration.parse(base, environment: [:])?.progressIntervalSeconds == 10)
        #expect(try WorkerConfiguration.parse(base + ["--progress-interval", "0.5"], environment: [:])?
            .progressIntervalSeconds == 0.5)
        #expect(try WorkerConfiguration.parse(base, environment: ["DVP_PROGRESS_INTERVAL": "0"])?
            .progressIntervalSeconds == 0)
        #expect {
            _ = try WorkerConfiguration.parse(base + ["--progress-interval", "-1"], environment: [:])
        } throws: { error in
            guard case .configuration(let message) = error as? WorkerError else { return false }
            return message.contains("--progress-interval")
        }
    }

    @Test("--source-extension-url (or DVP_SOURCE_EXTENSION_URL) reaches the mapper configuration")
    func sourceExtensionURL() throws {
        let config = try #require(try WorkerConfiguration.parse(
            ["--brokers", "b:1", "--allow-development-key"],
            environment: ["DVP_SOURCE_EXTENSION_URL": "https://fhir.acme.test/StructureDefinition/hk-source"]))
        #expect(config.sourceExtensionURL == "https://fhir.acme.test/StructureDefinition/hk-source")
    }

    @Test("--statistics-code-system (or DVP_STATISTICS_CODE_SYSTEM) reaches the mapper configuration")
    func statisticsCodeSystem() throws {
        let config = try #require(try WorkerConfiguration.parse(
            ["--brokers", "b:1", "--allow-development-key"],
            environment: ["DVP_STATISTICS_CODE_SYSTEM": "https://fhir.acme.test/CodeSystem/daily-statistics"]))
        #expect(config.statisticsCodeSystem == "https://fhir.acme.test/CodeSystem/daily-statistics")
    }

    @Test("--fhir-* flags and their DVP_FHIR_* twins configure the FHIR store; wrong combinations are refused")
    func fhirStoreFlags() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fhir-flags-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = { (name: String, text: String) throws -> String in
            let url = directory.appendingPathComponent(name)
            try text.write(to: url, atomically: true, encoding: .utf8)
            return url.path
        }
        let (ca, cert, key, token, secret) = (
            try file("ca.pem", "ca"), try file("cert.pem", "c"), try file("key.pem", "k"), try file("token", "t"),
            try file("secret", "s3cret\n")
        )
        let base = ["--brokers", "b:1", "--allow-development-key", "--store", "fhir+https://fhir.example.org/r4"]
        let config = try #require(try WorkerConfiguration.parse(
            base + ["--fhir-batch-size", "500", "--fhir-ca-file", ca, "--fhir-client-cert", cert, "--fhir-client-key",
                    key, "--store-timeout", "12", "--fhir-connect-timeout", "3", "--fhir-bundles-in-flight", "8"],
            environment: ["DVP_FHIR_TOKEN_FILE": token]))
        #expect(config.fhir.batchSize == 500 && config.fhir.bundlesInFlight == 8)
        #expect(config.fhir.http.caBundlePath == ca && config.fhir.http.clientCertificatePath == cert)
        #expect(config.fhir.http.clientKeyPath == key)
        #expect(config.fhir.http.requestTimeout == .seconds(12) && config.fhir.http.connectTimeout == .seconds(3))
        #expect(config.fhir.authorization == .bearerTokenFile(path: token))

        let oauth = try #require(try WorkerConfiguration.parse(
            base + ["--fhir-token-url", "https://login.example.org/token", "--fhir-client-id", "dvp",
                    "--fhir-client-secret-file", secret, "--fhir-scope", "system/Observation.write"], environment: [:]))
        #expect(oauth.fhir.authorization == .clientCredentials(OAuth2ClientCredentials(
            tokenURL: "https://login.example.org/token", clientID: "dvp", clientSecret: "s3cret",
            scope: "system/Observation.write")))
        #expect(oauth.fhir.batchSize == 100 && oauth.fhir.bundlesInFlight == 4)

        let wrong: [[String]] = [
            ["--fhir-batch-size", "501"], ["--fhir-client-cert", cert], ["--fhir-ca-file", "/nonexistent/ca.pem"],
            ["--fhir-token-url", "https://login.example.org/token"],
            ["--fhir-token-file", token, "--fhir-token-url", "https://x/t", "--fhir-client-id", "a",
             "--fhir-client-secret-file", secret],
            ["--fhir-connect-timeout", "0"], ["--fhir-bundles-in-flight", "0"], ["--fhir-bundles-in-flight", "17"],
        ]
        for extra in wrong {
            #expect(throws: WorkerError.self, "\(extra)") { try WorkerConfiguration.parse(base + extra, environment: [:]) }
        }
    }

    // MARK: - Secure by default: no id key, no start (unless a devbroker or an explicit opt-in)

    @Test(
        "No key configured against a real-looking broker: refused, and the message says what to do",
        arguments: ["kafka-1:9092,kafka-2:9092", "127.0.0.1:9092", "localhost:9092"])
    func developmentKeyRefused(brokers: String) {
        #expect {
            _ = try WorkerConfiguration.parse(["--brokers", brokers], environment: [:])
        } throws: { error in
            guard case .configuration(let message) = error as? WorkerError else { return false }
            return message.contains("--id-key-file") && message.contains("DVP_ID_KEY")
                && message.contains("--allow-development-key") && message.contains("devbroker")
        }
    }

    @Test(
        "--allow-development-key (or DVP_ALLOW_DEVELOPMENT_KEY) starts with the development key, flagged",
        arguments: [
            (["--brokers", "b:1", "--allow-development-key"], [String: String]()),
            (["--brokers", "b:1"], ["DVP_ALLOW_DEVELOPMENT_KEY": "true"]),
        ])
    func developmentKeyAllowed(arguments: [String], environment: [String: String]) throws {
        let config = try #require(try WorkerConfiguration.parse(arguments, environment: environment))
        #expect(config.usesDevelopmentIDKey)
        #expect(config.idKey == WorkerConfiguration.developmentIDKey)
    }

    @Test("A local devbroker's bootstrap file is enough: development key, flagged, list from line 1")
    func developmentKeyWithDevBroker() throws {
        let file = KafkaBootstrapFile(bootstrapServers: "127.0.0.1:40001,127.0.0.1:40002",
                                                  isDevelopmentBroker: true)
        try Self.withFile(file.text) { path in
            for (arguments, environment) in [(["--brokers-file", path], [:]), ([], ["DVP_BROKERS_FILE": path])] {
                let config = try #require(try WorkerConfiguration.parse(arguments, environment: environment))
                #expect(config.brokers == "127.0.0.1:40001,127.0.0.1:40002")
                #expect(config.usesDevelopmentIDKey)
            }
        }
    }

    @Test(
        "A bootstrap file without the marker, or with it but a remote address, still needs a key",
        arguments: [
            "127.0.0.1:40001\n",
            "kafka-1.prod:9092\n\(KafkaBootstrapFile.marker)\n",
        ])
    func bootstrapFileNotDevBroker(text: String) throws {
        try Self.withFile(text) { path in
            #expect(throws: WorkerError.self) {
                _ = try WorkerConfiguration.parse(["--brokers-file", path], environment: [:])
            }
            let keyed = try #require(try WorkerConfiguration.parse(
                ["--brokers-file", path], environment: ["DVP_ID_KEY": "0123456789abcdef"]))
            #expect(!keyed.usesDevelopmentIDKey)
        }
    }

    @Test("--brokers wins over the devbroker file, and then the development key is refused")
    func brokersFlagWinsOverFile() throws {
        let file = KafkaBootstrapFile(bootstrapServers: "127.0.0.1:40001", isDevelopmentBroker: true)
        try Self.withFile(file.text) { path in
            #expect(throws: WorkerError.self) {
                _ = try WorkerConfiguration.parse(["--brokers", "kafka:9092", "--brokers-file", path], environment: [:])
            }
            // The --brokers-file flag wins over DVP_BROKERS (flags win over the environment).
            let config = try #require(try WorkerConfiguration.parse(
                ["--brokers-file", path], environment: ["DVP_BROKERS": "kafka:9092"]))
            #expect(config.brokers == "127.0.0.1:40001")
        }
    }

    static func withFile(_ text: String, _ body: (String) throws -> Void) throws {
        let name = "dvp-bootstrap-\(UUID().uuidString)"
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        try body(path)
    }

    @Test("--start-time takes RFC 3339 instants with offsets, or epoch milliseconds")
    func startTime() throws {
        let rfc = try #require(try WorkerConfiguration.parse(
            ["--brokers", "b:1", "--start-time", "2026-10-01T02:00:00+02:00", "--allow-development-key"],
            environment: [:]))
        #expect(rfc.startTimestampMs == 1_790_812_800_000)
        let ms = try #require(try WorkerConfiguration.parse(
            ["--brokers", "b:1"], environment: ["DVP_START_TIME": "1759276800123", "DVP_ID_KEY": "0123456789abcdef"]))
        #expect(ms.startTimestampMs == 1_759_276_800_123)
    }

    @Test("--help returns nil")
    func help() throws {
        #expect(try WorkerConfiguration.parse(["--help"], environment: [:]) == nil)
    }

    @Test(
        "Bad input names the flag and the rule",
        arguments: [
            ([], "--brokers"),
            (["--brokers", "b:1", "--batch-size", "0"], "--batch-size"),
            (["--brokers", "b:1", "--batch-size", "ten"], "--batch-size"),
            (["--brokers", "b:1", "--start", "yesterday"], "--start"),
            (["--brokers", "b:1", "--log-level", "loud"], "--log-level"),
            (["--brokers", "b:1", "--drain-timeout", "-3"], "--drain-timeout"),
            (["--brokers", "b:1", "--store-timeout", "0"], "--store-timeout"),
            (["--brokers", "b:1", "--retraction-mode", "forget"], "--retraction-mode"),
            (["--brokers", "b:1", "-X", "novalue"], "-X"),
            (["--brokers", "b:1", "--frobnicate"], "--frobnicate"),
            (["--brokers", "b:1", "--start-time", "last tuesday"], "--start-time"),
            (["--brokers"], "--brokers"),
            (["--brokers", "b:1", "--id-key-file", "/nonexistent/key"], "--id-key-file"),
            (["--brokers", "b:1"], "--allow-development-key"),
            (["--brokers-file", "/nonexistent/bootstrap"], "--brokers-file"),
            (["--brokers", "b:1", "--allow-development-key=yes"], "--allow-development-key"),
        ])
    func rejects(arguments: [String], mentions: String) {
        do {
            _ = try WorkerConfiguration.parse(arguments, environment: [:])
            Issue.record("accepted \(arguments)")
        } catch {
            #expect("\(error)".contains(mentions), "\(error)")
        }
    }
}

@Suite("librdkafka's pre-fetch queue per store")
struct PrefetchQueueTests {
    static func queue(_ extra: [String]) throws -> String? {
        let configuration = try #require(
            try WorkerConfiguration.parse(["--brokers", "b:1", "--allow-development-key"] + extra, environment: [:]))
        let service = WorkerService(configuration: configuration, logger: Logger(level: .error))
        return service.consumerConfiguration().extra["queued.max.messages.kbytes"]
    }

    @Test("32 MiB where PostgreSQL keeps up with a replay; 16 MiB where the store is the bound; -X wins")
    func queueSizePerStore() throws {
        #expect(try Self.queue(["--store", "postgresql://u@db/dvp"]) == "32768")
        #expect(try Self.queue(["--store", "sqlite:/tmp/x.sqlite"]) == "16384")
        #expect(try Self.queue(["--store", "fhir+https://fhir.example.org/r4"]) == "16384")
        #expect(
            try Self.queue(["--store", "postgresql://u@db/dvp", "-X", "queued.max.messages.kbytes=8192"]) == "8192")
    }
}
