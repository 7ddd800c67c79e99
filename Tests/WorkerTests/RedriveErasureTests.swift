import DeadLetters
import Foundation
import Kafka
import TestSupport
import Testing

/// Issue 38 (item 5) through real processes (devbroker + producer + worker + SQLite + `storectl erase` + `dlq`): a
/// redrive drops the dead letters of an erased person — neither republished nor quarantined, counted `erased` — and
/// republishes the others; without the workers' store it refuses to start; with another key it refuses the ledger.
@Suite("Dead-letter redrive and erased persons", .serialized, .timeLimit(.minutes(5)))
struct RedriveErasureTests {
    static let key = ["DVP_ID_KEY": "test-id-key-0123456789abcdef"]

    static func dlq(_ harness: PipelineHarness, _ arguments: [String], environment: [String: String] = key)
        async throws -> ProcessResult
    {
        try await runCommand(
            TestEnvironment.binary("dlq"), [arguments[0], "--brokers", harness.bootstrap] + arguments.dropFirst(),
            environment: environment)
    }

    @Test(arguments: ["sqlite", "postgres"])
    func anErasedPersonsDeadLettersAreDroppedAndCountedTheOthersRepublished(_ kind: String) async throws {
        let harness = try PipelineHarness(partitions: 3)
        try await harness.startBroker()
        let store =
            kind == "sqlite"
            ? "sqlite:\(harness.directory.path)/observations.sqlite"
            : try await TestPostgres.freshDatabase("dvp_redrive")
        let erased = "pat-erased-77"
        let patients = ["pat-1", erased, "pat-3", "pat-4"]
        // Out of range with the built-in catalog (dead-lettered); the person erased later sends two versions.
        var lines = patients.map { RedriveEndToEndTests.heartRate($0, 320, version: 1) }
        lines.append(RedriveEndToEndTests.heartRate(erased, 330, version: 2))
        try await RedriveEndToEndTests.publish(harness, lines, name: "bad")
        try await RedriveEndToEndTests.runWorker(harness, store)
        #expect(try await harness.deadLetters().count == 5)

        let erase = try await runCommand(
            TestEnvironment.binary("storectl"),
            ["erase", "--store", store, "--patient", erased, "--reference", "ticket-4711"], environment: Self.key)
        #expect(erase.status == 0, "\(erase.stdout) \(erase.stderr)")
        #expect(erase.stdout.contains("kafka: not asked"), "no --brokers: nothing asked: \(erase.stdout)")
        let catalog = try RedriveEndToEndTests.catalogFix(harness)

        let noStore = try await Self.dlq(harness, ["redrive", "--catalog", catalog])
        #expect(noStore.status == 2, "a redrive without the store refuses: \(noStore.stdout) \(noStore.stderr)")
        #expect(noStore.stderr.contains("--no-erasure-check"), "\(noStore.stderr)")
        let otherKey = try await Self.dlq(
            harness, ["redrive", "--catalog", catalog, "--store", store],
            environment: ["DVP_ID_KEY": "another-key-0123456789abcdef"])
        #expect(otherKey.status == 2, "a ledger under another key is refused: \(otherKey.stdout) \(otherKey.stderr)")
        let missing = try await Self.dlq(
            harness, ["redrive", "--catalog", catalog, "--store", "sqlite:\(harness.directory.path)/typo.sqlite"])
        #expect(missing.status == 2, "no SQLite store is created: \(missing.stderr)")

        let dryRun = try await Self.dlq(harness, ["redrive", "--dry-run", "--catalog", catalog, "--store", store])
        #expect(dryRun.status == 0, "\(dryRun.stdout) \(dryRun.stderr)")
        #expect(dryRun.stdout.contains("erased           2"), "\(dryRun.stdout)")
        #expect(dryRun.stdout.contains("would-republish  3"), "\(dryRun.stdout)")

        let redrive = try await Self.dlq(harness, ["redrive", "--catalog", catalog, "--store", store, "--json"])
        #expect(redrive.status == 0, "\(redrive.stdout) \(redrive.stderr)")
        let summary = try #require(
            try JSONSerialization.jsonObject(with: Data(redrive.stdout.utf8)) as? [String: Any], "\(redrive.stdout)")
        #expect(summary["erased"] as? Int == 2 && summary["republished"] as? Int == 3, "\(redrive.stdout)")
        #expect(summary["selected"] as? Int == 5)
        #expect(!(redrive.stdout + redrive.stderr).contains(erased), "the erased person's id is never printed")

        let redriven = try await KafkaConsumer.readAll(topic: harness.topic, bootstrapServers: harness.bootstrap)
            .filter { RedriveEndToEndTests.headers($0)[DeadLetterHeaders.redriveCount] != nil }
        #expect(Set(redriven.map { String(decoding: $0.key ?? [], as: UTF8.self) }) == ["pat-1", "pat-3", "pat-4"])
        let quarantined = try await KafkaConsumer.readAll(
            topic: "\(harness.deadLetterTopic).quarantine", bootstrapServers: harness.bootstrap)
        #expect(quarantined.isEmpty, "an erased person's dead letter is not copied to quarantine")
        let again = try await Self.dlq(harness, ["redrive", "--catalog", catalog, "--store", store])
        #expect(again.stdout.contains("read             0"), "the dropped ones are committed past: \(again.stdout)")

        try await RedriveEndToEndTests.runWorker(harness, store, extra: ["--catalog", catalog])
        let dump = try await harness.storeDump(store)
        #expect(Set(dump.keys.map { $0.split(separator: "/")[0] }) == ["pat-1", "pat-3", "pat-4"], "\(dump)")
    }

    /// A FHIR store keeps its erasure ledger on the server (`Basic` resources): `dlq redrive --store fhir+…` reads it
    /// there. (The dead letters come from a SQLite worker: which store wrote them does not matter to the redrive.)
    @Test func aFHIRStoresLedgerDropsTheDeadLettersToo() async throws {
        let harness = try PipelineHarness(partitions: 2)
        try await harness.startBroker()
        let server = try await TestFHIRServer(validation: .off)
        let fhir = "fhir+" + server.baseURL
        let store = "sqlite:\(harness.directory.path)/observations.sqlite"
        try await RedriveEndToEndTests.publish(
            harness,
            ["pat-1", "pat-fhir-erased"].map { RedriveEndToEndTests.heartRate($0, 320, version: 1) }, name: "bad")
        try await RedriveEndToEndTests.runWorker(harness, store)
        let erase = try await runCommand(
            TestEnvironment.binary("storectl"),
            ["erase", "--store", fhir, "--patient", "pat-fhir-erased", "--reference", "ticket-9"], environment: Self.key
        )
        #expect(erase.status == 0, "\(erase.stdout) \(erase.stderr)")
        let catalog = try RedriveEndToEndTests.catalogFix(harness)
        let redrive = try await Self.dlq(harness, ["redrive", "--catalog", catalog, "--store", fhir])
        #expect(redrive.status == 0, "\(redrive.stdout) \(redrive.stderr)")
        #expect(redrive.stdout.contains("republish        1") && redrive.stdout.contains("erased           1"))
        let redriven = try await KafkaConsumer.readAll(topic: harness.topic, bootstrapServers: harness.bootstrap)
            .filter { RedriveEndToEndTests.headers($0)[DeadLetterHeaders.redriveCount] != nil }
        #expect(redriven.map { String(decoding: $0.key ?? [], as: UTF8.self) } == ["pat-1"])
    }

    /// Issue 38 item 6: `storectl erase --brokers` says when the topics' last copies expire. devbroker's mock cluster
    /// has no DescribeConfigs, so without `--topic-retention-ms` the expiry is unknown (never guessed); with it the
    /// date is `now + retention.ms + segment.ms` (Kafka deletes whole segments).
    @Test func storectlEraseSaysWhenTheTopicsCopiesExpire() async throws {
        let harness = try PipelineHarness(partitions: 2)
        try await harness.startBroker()
        let store = "sqlite:\(harness.directory.path)/observations.sqlite"
        let erase = ["erase", "--store", store, "--reference", "ticket-1", "--brokers", harness.bootstrap]
        let unknown = try await runCommand(
            TestEnvironment.binary("storectl"), erase + ["--patient", "pat-1"], environment: Self.key)
        #expect(unknown.status == 0, "\(unknown.stdout) \(unknown.stderr)")
        #expect(
            unknown.stdout.contains(
                "kafka daily-values: expiry unknown: the brokers did not describe the topic (_TIMED_OUT); "
                    + "give --topic-retention-ms"), "\(unknown.stdout)")
        let stated = try await runCommand(
            TestEnvironment.binary("storectl"), erase + ["--patient", "pat-2", "--topic-retention-ms", "86400000"],
            environment: Self.key)
        #expect(stated.status == 0, "\(stated.stdout) \(stated.stderr)")
        let line = try #require(stated.stdout.split(separator: "\n").first { $0.hasPrefix("kafka daily-values.dlq:") })
        #expect(line.contains("the last copy of events published up to now expires by "), "\(line)")
        #expect(line.contains("(retention.ms 86400000 + segment.ms 604800000, --topic-retention-ms"), "\(line)")
        let expires = try #require(line.split(separator: " ").first { $0.hasSuffix("Z") }.map(String.init))
        let date = try #require(ISO8601DateFormatter().date(from: expires), "\(expires)")
        #expect(abs(date.timeIntervalSinceNow - 8 * 86_400) < 120, "now + 1 d + 7 d: \(expires)")
        #expect(!(stated.stdout + unknown.stdout).contains("pat-"), "no patient id printed")
    }

    @Test func noErasureCheckRedrivesWithoutAStore() async throws {
        let harness = try PipelineHarness(partitions: 2)
        try await harness.startBroker()
        let store = "sqlite:\(harness.directory.path)/observations.sqlite"
        try await RedriveEndToEndTests.publish(
            harness, [RedriveEndToEndTests.heartRate("pat-1", 320, version: 1)], name: "bad")
        try await RedriveEndToEndTests.runWorker(harness, store)
        let catalog = try RedriveEndToEndTests.catalogFix(harness)
        let both = try await Self.dlq(harness, ["redrive", "--no-erasure-check", "--store", store])
        #expect(both.status == 2, "\(both.stderr)")
        let redrive = try await Self.dlq(harness, ["redrive", "--catalog", catalog, "--no-erasure-check"])
        #expect(redrive.status == 0 && redrive.stdout.contains("republish        1"), "\(redrive.stdout)")
        #expect(redrive.stdout.contains("erased           0"), "\(redrive.stdout)")
    }
}
