import Foundation
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
            ["--brokers", "b:1", "--store-timeout", "2.5"], environment: [:]))
        #expect(config.storeTimeoutSeconds == 2.5)
        let fromEnvironment = try #require(try WorkerConfiguration.parse(
            ["--brokers", "b:1"], environment: ["DVP_STORE_TIMEOUT": "7"]))
        #expect(fromEnvironment.storeTimeoutSeconds == 7)
    }

    @Test("No key configured: the development key, flagged")
    func developmentKey() throws {
        let config = try #require(try WorkerConfiguration.parse(["--brokers", "b:1"], environment: [:]))
        #expect(config.usesDevelopmentIDKey)
        #expect(config.idKey == WorkerConfiguration.developmentIDKey)
    }

    @Test("--start-time takes RFC 3339 instants with offsets, or epoch milliseconds")
    func startTime() throws {
        let rfc = try #require(try WorkerConfiguration.parse(
            ["--brokers", "b:1", "--start-time", "2026-10-01T02:00:00+02:00"], environment: [:]))
        #expect(rfc.startTimestampMs == 1_790_812_800_000)
        let ms = try #require(try WorkerConfiguration.parse(
            ["--brokers", "b:1"], environment: ["DVP_START_TIME": "1759276800123"]))
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
            (["--brokers", "b:1", "-X", "novalue"], "-X"),
            (["--brokers", "b:1", "--frobnicate"], "--frobnicate"),
            (["--brokers", "b:1", "--start-time", "last tuesday"], "--start-time"),
            (["--brokers"], "--brokers"),
            (["--brokers", "b:1", "--id-key-file", "/nonexistent/key"], "--id-key-file"),
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
