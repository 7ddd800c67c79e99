import DeadLetters
import Foundation
import Kafka
import TestSupport
import Testing

/// Issue 27 through real processes (devbroker + producer + worker + SQLite + `dlq`): events dead-lettered for a
/// catalog reason are redriven after the catalog is fixed and stored at their version; a stale redrive is a no-op;
/// a `kill -9` mid-redrive loses nothing; headers do not grow; a record that keeps failing ends in quarantine.
@Suite("Dead-letter redrive end to end", .serialized, .timeLimit(.minutes(5)))
struct RedriveEndToEndTests {
    static let day = UnitSafetyEndToEndTests.recentDay()

    /// A heart-rate event; above 300/min it is `ValueOutOfRange` with the built-in catalog.
    static func heartRate(_ patient: String, _ value: Int, version: Int) -> String {
        #"{"schema":1,"patient":"\#(patient)","metric":"heart_rate","day":"\#(day)","utcOffset":"+01:00","value":\#(value),"version":\#(version)}"#
    }

    /// Writes the catalog fix (heart rate plausible up to 350/min) and returns its path.
    static func catalogFix(_ harness: PipelineHarness) throws -> String {
        let url = harness.directory.appendingPathComponent("catalog.json")
        try Data(#"{"metrics":{"heart_rate":{"plausibleMax":350}}}"#.utf8).write(to: url)
        return url.path
    }

    static func publish(_ harness: PipelineHarness, _ lines: [String], name: String) async throws {
        let url = harness.directory.appendingPathComponent("\(name).jsonl")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: url)
        try await harness.publish(url)
    }

    static func runWorker(_ harness: PipelineHarness, _ store: String, extra: [String] = []) async throws {
        let worker = try harness.startWorker(store: store, extra: extra)
        #expect(await worker.waitForExit(timeout: .seconds(120)) == 0, "worker: \(worker.stderr.suffix(2000))")
    }

    /// `dlq COMMAND --brokers …`; a redrive without `--store` says `--no-erasure-check` (RedriveErasureTests has the
    /// erasure check).
    static func dlq(_ harness: PipelineHarness, _ arguments: [String]) async throws -> ProcessResult {
        let unchecked = arguments[0] == "redrive" && !arguments.contains("--store") ? ["--no-erasure-check"] : []
        return try await runCommand(
            TestEnvironment.binary("dlq"),
            [arguments[0], "--brokers", harness.bootstrap] + arguments.dropFirst() + unchecked)
    }

    static func headers(_ record: KafkaMessage) -> [String: String] {
        Dictionary(
            record.headers.map { ($0.key, String(decoding: $0.value ?? [], as: UTF8.self)) },
            uniquingKeysWith: { _, last in last })
    }

    @Test func catalogFixThenRedriveStoresTheEventsAndAStaleOneIsANoOp() async throws {
        let harness = try PipelineHarness(partitions: 3)
        try await harness.startBroker()
        let store = "sqlite:\(harness.directory.path)/observations.sqlite"
        try await Self.publish(
            harness,
            [
                Self.heartRate("pat-1", 320, version: 1), Self.heartRate("pat-2", 330, version: 1),
                Self.heartRate("pat-3", 340, version: 1),
                #"{"schema":1,"patient":"pat-4","metric":"blood_glucose","day":"\#(Self.day)","utcOffset":"+01:00","value":5.4,"version":1}"#,
            ],
            name: "bad")
        try await Self.runWorker(harness, store)
        #expect(try await harness.deadLetters().count == 4)
        // p-1 sends a newer, valid value before the redrive: the redriven version 1 must not replace it.
        try await Self.publish(harness, [Self.heartRate("pat-1", 72, version: 2)], name: "newer")
        try await Self.runWorker(harness, store)

        let prometheus = harness.directory.appendingPathComponent("dlq.prom")
        let stats = try await Self.dlq(harness, ["stats", "--retention", "14d", "--prometheus-file", prometheus.path])
        #expect(stats.status == 0, "\(stats.stderr)")
        #expect(stats.stdout.contains("dead letters       4"))
        #expect(stats.stdout.contains("ValueOutOfRange  3") && stats.stdout.contains("MissingUnit      1"))
        #expect(
            stats.stdout.contains("14d 0h (--retention; the brokers did not describe the topic"),
            "mock: no DescribeConfigs")
        let exposition = try String(contentsOf: prometheus, encoding: .utf8)
        #expect(exposition.contains(#"dvp_dlq_unread_records{topic="daily-values.dlq",group="dvp-dlq-redrive"} 4"#))
        #expect(
            exposition.contains(#"dvp_dlq_retention_seconds{topic="daily-values.dlq",source="--retention"} 1209600"#))
        #expect(!stats.stdout.contains("pat-"), "no patient id printed: \(stats.stdout)")

        let catalog = try Self.catalogFix(harness)
        let dryRun = try await Self.dlq(harness, ["redrive", "--dry-run", "--catalog", catalog])
        #expect(dryRun.status == 1, "one would fail again: \(dryRun.stdout) \(dryRun.stderr)")
        #expect(dryRun.stdout.contains("would-republish  3"), "\(dryRun.stdout)")
        #expect(dryRun.stdout.contains("still-invalid: MissingUnit `unit`"), "\(dryRun.stdout)")
        #expect(!dryRun.stdout.contains("pat-"))
        let withoutFix = try await Self.dlq(harness, ["redrive", "--dry-run"])
        #expect(withoutFix.stdout.contains("would-republish  0"), "\(withoutFix.stdout)")

        let first = try await Self.dlq(
            harness,
            ["redrive", "--catalog", catalog, "--error-class", "ValueOutOfRange", "--max", "2", "--store", store])
        #expect(first.status == 0, "\(first.stdout) \(first.stderr)")
        #expect(first.stdout.contains("republish        2") && first.stdout.contains("stopped at --max"))
        let redrive = try await Self.dlq(
            harness, ["redrive", "--catalog", catalog, "--error-class", "ValueOutOfRange"])
        #expect(redrive.status == 0, "\(redrive.stdout) \(redrive.stderr)")
        #expect(redrive.stdout.contains("republish        1"), "the rest after --max: \(redrive.stdout)")
        let again = try await Self.dlq(harness, ["redrive", "--catalog", catalog, "--error-class", "ValueOutOfRange"])
        #expect(again.stdout.contains("read             0"), "the same command resumes past what it did")

        try await Self.runWorker(harness, store, extra: ["--catalog", catalog])
        let dump = try await harness.storeDump(store)
        #expect(dump["pat-1/heart_rate/\(Self.day)"] == 2, "the stale redrive of version 1 is a no-op")
        #expect(dump["pat-2/heart_rate/\(Self.day)"] == 1)
        #expect(dump["pat-3/heart_rate/\(Self.day)"] == 1)
        #expect(dump["pat-4/blood_glucose/\(Self.day)"] == nil)
        let redriven = try await KafkaConsumer.readAll(topic: harness.topic, bootstrapServers: harness.bootstrap)
            .filter { Self.headers($0)[DeadLetterHeaders.redriveCount] != nil }
        #expect(redriven.count == 3)
        #expect(
            redriven.allSatisfy {
                !$0.headers.contains {
                    DeadLetterHeaders.isAttemptHeader($0.key) && $0.key != DeadLetterHeaders.redriveCount
                }
            })
    }

    @Test func killMinusNineMidRedriveResumesWithNothingLost() async throws {
        let harness = try PipelineHarness(partitions: 3)
        try await harness.startBroker()
        let store = "sqlite:\(harness.directory.path)/observations.sqlite"
        let count = 60
        try await Self.publish(harness, (0..<count).map { Self.heartRate("pat-\($0)", 310, version: 7) }, name: "bad")
        try await Self.runWorker(harness, store)
        #expect(try await harness.deadLetters().count == count)

        let catalog = try Self.catalogFix(harness)
        let slow = try ChildProcess(
            TestEnvironment.binary("dlq"),
            ["redrive", "--brokers", harness.bootstrap, "--catalog", catalog, "--rate", "10", "--store", store],
            directory: harness.directory)
        let started = await eventually(timeout: .seconds(30)) {
            (try? await KafkaConsumer.readAll(topic: harness.topic, bootstrapServers: harness.bootstrap).count)
                ?? 0 >= count + 15
        }
        #expect(started, "the redrive republished some records")
        slow.signal(SIGKILL)
        _ = await slow.waitForExit(timeout: .seconds(10))
        let republishedBeforeKill =
            try await KafkaConsumer.readAll(topic: harness.topic, bootstrapServers: harness.bootstrap).count - count
        #expect(republishedBeforeKill < count, "killed mid-run")

        let resumed = try await Self.dlq(harness, ["redrive", "--catalog", catalog])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stdout.contains("read             \(count)") == false, "it resumed, not restarted")
        try await Self.runWorker(harness, store, extra: ["--catalog", catalog])
        let dump = try await harness.storeDump(store)
        #expect(dump.count == count, "nothing lost")
        #expect(dump.values.allSatisfy { $0 == 7 })
    }

    @Test func aRecordThatKeepsFailingIsQuarantinedAndItsHeadersDoNotGrow() async throws {
        let harness = try PipelineHarness(partitions: 2)
        try await harness.startBroker()
        let store = "sqlite:\(harness.directory.path)/observations.sqlite"
        try await Self.publish(harness, [Self.heartRate("pat-9", 320, version: 3)], name: "bad")
        let catalog = try Self.catalogFix(harness)
        // dlq re-validates with the fix, but the workers still run the old catalog: it fails again each time.
        try await Self.runWorker(harness, store)
        for round in 1...3 {
            let result = try await Self.dlq(harness, ["redrive", "--catalog", catalog, "--max-redrives", "2"])
            #expect(result.status == (round < 3 ? 0 : 1), "round \(round): \(result.stdout) \(result.stderr)")
            try await Self.runWorker(harness, store)
        }
        let letters = try await harness.deadLetters()
        #expect(letters.count == 3, "dead-lettered at first and after each of the two redrives")
        #expect(
            letters.map { Self.headers($0)[DeadLetterHeaders.redriveCount] }.sorted { ($0 ?? "") < ($1 ?? "") } == [
                nil, "1", "2",
            ])
        let redriven = letters.filter { Self.headers($0)[DeadLetterHeaders.redriveCount] != nil }
        #expect(redriven.count == 2 && Set(redriven.map(\.headers.count)).count == 1, "headers do not grow")
        let quarantined = try await KafkaConsumer.readAll(
            topic: "\(harness.deadLetterTopic).quarantine", bootstrapServers: harness.bootstrap)
        #expect(quarantined.count == 1)
        #expect(
            quarantined.first.map { Self.headers($0)[DeadLetterHeaders.quarantineReason] }??.hasPrefix("max-redrives")
                == true)
        #expect(quarantined.first?.value == Array(Self.heartRate("pat-9", 320, version: 3).utf8))
        await #expect(try harness.storeDump(store).isEmpty)
    }
}

extension RedriveEndToEndTests {
    /// A value too large to copy is dead-lettered as a summary (size and SHA-256): `dlq` never republishes that
    /// summary as if it were the event, it quarantines it as `unrestorable` (and the dry run says so).
    @Test func aSummarizedDeadLetterIsQuarantinedNeverRepublished() async throws {
        let harness = try PipelineHarness(partitions: 2)
        try await harness.startBroker()
        let store = "sqlite:\(harness.directory.path)/observations.sqlite"
        let padding = String(repeating: "x", count: 950_000)
        try await Self.publish(
            harness,
            [
                #"{"schema":1,"patient":"pat-big","metric":"steps","day":"\#(Self.day)","utcOffset":"+01:00","value":1,"version":1,"pad":"\#(padding)"}"#
            ],
            name: "big")
        try await Self.runWorker(harness, store)
        let letters = try await harness.deadLetters()
        #expect(letters.count == 1 && letters.first.map { $0.value.count < 1000 } == true, "a summary was written")

        let dryRun = try await Self.dlq(harness, ["redrive", "--dry-run"])
        #expect(dryRun.status == 1 && dryRun.stdout.contains("unrestorable: summarized"), "\(dryRun.stdout)")
        let stats = try await Self.dlq(harness, ["stats"])
        #expect(stats.stdout.contains("unrestorable       1"), "\(stats.stdout)")
        let redrive = try await Self.dlq(harness, ["redrive"])
        #expect(redrive.status == 1 && redrive.stdout.contains("republish        0"), "\(redrive.stdout)")
        let origin = try await KafkaConsumer.readAll(topic: harness.topic, bootstrapServers: harness.bootstrap)
        #expect(origin.count == 1, "nothing republished to the origin topic")
        let quarantined = try await KafkaConsumer.readAll(
            topic: "\(harness.deadLetterTopic).quarantine", bootstrapServers: harness.bootstrap)
        #expect(
            quarantined.map { Self.headers($0)[DeadLetterHeaders.quarantineReason] } == [
                "unrestorable: summarized value"
            ])
    }
}

extension RedriveEndToEndTests {
    /// A one-request HTTP server that saves the body of a PUT (a stand-in for a Prometheus Pushgateway).
    static let pushgatewayScript = """
        import http.server, sys
        class H(http.server.BaseHTTPRequestHandler):
            def do_PUT(self):
                body = self.rfile.read(int(self.headers['Content-Length']))
                open(sys.argv[1], 'wb').write(self.path.encode() + b'\\n' + body)
                self.send_response(200); self.end_headers()
            def log_message(self, *args): pass
        server = http.server.HTTPServer(('127.0.0.1', 0), H)
        print(server.server_address[1], flush=True)
        server.handle_request()
        """

    /// `dlq stats --pushgateway` PUTs the same exposition `--prometheus-file` writes, under job `dvp-dlq-stats`.
    @Test func statsPushesItsFiguresToAPushgateway() async throws {
        let harness = try PipelineHarness(partitions: 2)
        try await harness.startBroker()
        let pushed = harness.directory.appendingPathComponent("pushed.txt")
        let server = try ChildProcess(
            try await TestPython.executable().path, ["-c", Self.pushgatewayScript, pushed.path],
            directory: harness.directory)
        #expect(await eventually { !server.stdout.isEmpty })
        let port = server.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let file = harness.directory.appendingPathComponent("dlq.prom")
        let stats = try await Self.dlq(
            harness, ["stats", "--pushgateway", "http://127.0.0.1:\(port)", "--prometheus-file", file.path])
        #expect(stats.status == 0, "\(stats.stderr)")
        #expect(await server.waitForExit(timeout: .seconds(10)) == 0)
        let body = try String(contentsOf: pushed, encoding: .utf8)
        #expect(body == "/metrics/job/dvp-dlq-stats\n" + (try String(contentsOf: file, encoding: .utf8)))
        #expect(body.contains(#"dvp_dlq_records{topic="daily-values.dlq"} 0"#))
    }
}
