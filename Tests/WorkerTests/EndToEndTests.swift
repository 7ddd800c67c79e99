import Foundation
import Kafka
import StoreCore
import TestSupport
import Testing

/// The whole pipeline with real processes: devbroker (librdkafka mock cluster over TCP), producer, worker(s),
/// SQLite or PostgreSQL. Every test compares the store with the generator's oracle.
@Suite("Worker end to end", .serialized, .timeLimit(.minutes(5)))
struct EndToEndTests {
    /// A stream with late higher versions, exact duplicates, out-of-order versions and invalid events.
    static let messyStream = [
        "--late-share", "0.1", "--duplicate-share", "0.05", "--out-of-order-share", "0.05", "--invalid-share", "0.02",
    ]

    @Test("SQLite: store equals the oracle, invalid events dead-lettered with reasons, offsets committed to the end")
    func sqliteMatchesOracle() async throws {
        let harness = try PipelineHarness()
        try await harness.startBroker()
        let (events, oracle) = try await harness.generate(patients: 40, days: 5, seed: 11, extra: Self.messyStream)
        try await harness.publish(events)
        let store = "sqlite:\(harness.directory.path)/observations.sqlite"

        let worker = try harness.startWorker(store: store)
        let status = await worker.waitForExit(timeout: .seconds(120))
        #expect(status == 0, "worker: \(worker.stderr.suffix(2000))")

        let differences = await oracle.differences(from: try harness.storeDump(store))
        #expect(differences.isEmpty, "store differs from the oracle: \(differences)")

        let deadLetters = try await harness.deadLetters()
        #expect(deadLetters.count == oracle.invalid.count)
        for record in deadLetters {
            let headers = Dictionary(
                record.headers.map { ($0.key, String(decoding: $0.value ?? [], as: UTF8.self)) },
                uniquingKeysWith: { a, _ in a })
            #expect(headers["__connect.errors.topic"] == harness.topic)
            #expect(!(headers["__connect.errors.exception.class.name"] ?? "").isEmpty)
            #expect(!(headers["__connect.errors.exception.message"] ?? "").isEmpty)
            #expect(headers["__connect.errors.offset"].flatMap(Int64.init) != nil)
        }

        for p in try await harness.committedVersusEnd(group: "workers") {
            #expect(p.committed == p.end, "partition \(p.partition): committed \(p.committed), end \(p.end)")
        }
        let summary = parseSummary(worker.stdout)
        #expect(summary["dead-lettered"] == Int64(oracle.invalid.count))
        #expect((summary["inserted"] ?? 0) == Int64(oracle.versions.count))
    }

    @Test("A replay with a fresh group changes nothing in the store")
    func replayChangesNothing() async throws {
        let harness = try PipelineHarness()
        try await harness.startBroker()
        let (events, oracle) = try await harness.generate(patients: 20, days: 4, seed: 12, extra: Self.messyStream)
        try await harness.publish(events)
        let store = "sqlite:\(harness.directory.path)/observations.sqlite"
        let first = try harness.startWorker(store: store, group: "live")
        #expect(await first.waitForExit(timeout: .seconds(120)) == 0, "\(first.stderr.suffix(2000))")
        let before = try await runCommand(
            "/usr/bin/sqlite3",
            [
                "\(harness.directory.path)/observations.sqlite",
                "SELECT patient, metric, day, version, version_id, last_updated, status, resource, hex(document) "
                    + "FROM observation ORDER BY 1, 2, 3",
            ])
        #expect(before.status == 0, "\(before.stderr)")

        let replay = try harness.startWorker(
            store: store, group: "replay-1", extra: ["--start", "earliest"],
            name: "replay")
        #expect(await replay.waitForExit(timeout: .seconds(120)) == 0, "\(replay.stderr.suffix(2000))")
        let summary = parseSummary(replay.stdout)
        #expect(summary["inserted"] == 0)
        #expect(summary["updated"] == 0)
        #expect(
            (summary["unchanged"] ?? 0) + (summary["stale"] ?? 0) == (summary["consumed"] ?? -1)
                - Int64(oracle.invalid.count))
        let after = try await runCommand(
            "/usr/bin/sqlite3",
            [
                "\(harness.directory.path)/observations.sqlite",
                "SELECT patient, metric, day, version, version_id, last_updated, status, resource, hex(document) "
                    + "FROM observation ORDER BY 1, 2, 3",
            ])
        #expect(after.stdout == before.stdout, "the replay rewrote rows")
        let dump = try await harness.storeDump(store)
        #expect(oracle.differences(from: dump).isEmpty)
    }

    /// Retraction events in the stream (docs/LIFECYCLE.md), on each SQL store and in each `--retraction-mode`: the
    /// store equals the oracle (a retracted day holds its retraction's version, entered-in-error; deleted, it is
    /// absent), every retracted day is in the ledger, and a replay from the earliest offset leaves the store
    /// byte-identical (rows and ledger).
    @Test(
        "Retractions stay retracted through a replay; store equals the oracle",
        arguments: SQLStoreKind.allCases, RetractionMode.allCases)
    func retractionsStayRetractedThroughAReplay(kind: SQLStoreKind, mode: RetractionMode) async throws {
        let harness = try PipelineHarness()
        try await harness.startBroker()
        var (events, oracle) = try await harness.generate(
            patients: 20, days: 4, seed: 14, extra: Self.messyStream + ["--retraction-share", "0.15"])
        // One retraction per retracted day; its version is above all the day's values, so each one wins.
        let retracted = try String(contentsOf: events, encoding: .utf8).split(separator: "\n")
            .filter { $0.contains(#""kind":"retraction""#) }
            .compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .map { "\($0["patient"] ?? "")/\($0["metric"] ?? "")/\($0["day"] ?? "")" }
        #expect(retracted.count > 20 && Set(retracted).count == retracted.count)
        if mode == .delete { retracted.forEach { oracle.versions[$0] = nil } }
        try await harness.publish(events)
        let store = try await kind.freshLocation(in: harness.directory)
        let options = ["--retraction-mode", mode.rawValue]
        let first = try harness.startWorker(store: store, group: "live", extra: options)
        #expect(await first.waitForExit(timeout: .seconds(120)) == 0, "\(first.stderr.suffix(2000))")
        await #expect(oracle.differences(from: try harness.storeDump(store)).isEmpty)
        let withdrawnRows = try await kind.query(
            store, "SELECT patient || '/' || metric || '/' || day FROM observation WHERE status = 'entered-in-error'")
        let resources = try await kind.storedObservations(store)
        let withdrawn = withdrawnRows.split(separator: "\n").filter { key in
            resources[String(key)].map { $0.resource.contains(#""status":"entered-in-error""#) } ?? false
        }
        #expect(withdrawn.count == (mode == .delete ? 0 : retracted.count), "the status column and the resource")
        await #expect(try kind.query(store, "SELECT count(*) FROM retraction") == String(retracted.count))
        #expect(parseSummary(first.stdout)["retracted"] == Int64(retracted.count))

        let dump =
            "SELECT patient, metric, day, version, version_id, last_updated, status, "
            + "\(kind.storedResourceColumn) FROM observation ORDER BY 1, 2, 3"
        let ledger =
            "SELECT patient, metric, day, version, reason, recorded_at, version_id FROM retraction ORDER BY 1, 2, 3"
        let before = await (try kind.query(store, dump), try kind.query(store, ledger))
        let replay = try harness.startWorker(
            store: store, group: "replay-1", extra: ["--start", "earliest"] + options,
            name: "replay")
        #expect(await replay.waitForExit(timeout: .seconds(120)) == 0, "\(replay.stderr.suffix(2000))")
        let summary = parseSummary(replay.stdout)
        #expect(summary["inserted"] == 0 && summary["updated"] == 0 && summary["retracted"] == 0)
        let after = await (try kind.query(store, dump), try kind.query(store, ledger))
        #expect(after.0 == before.0, "the replay rewrote rows")
        #expect(after.1 == before.1, "the replay rewrote the ledger")
    }

    @Test("--start-time on the mock cluster (no timestamp index): warns, falls back to --start, loses nothing")
    func startTimeFallsBackOnTheMock() async throws {
        let harness = try PipelineHarness()
        try await harness.startBroker()
        let (events, oracle) = try await harness.generate(patients: 10, days: 3, seed: 13)
        try await harness.publish(events)
        let store = "sqlite:\(harness.directory.path)/observations.sqlite"
        let worker = try harness.startWorker(
            store: store, group: "backfill", extra: ["--start", "earliest", "--start-time", "2026-09-02T00:00:00Z"])
        #expect(await worker.waitForExit(timeout: .seconds(120)) == 0, "\(worker.stderr.suffix(2000))")
        #expect(worker.stderr.contains("start timestamp: no offset"))
        let dump = try await harness.storeDump(store)
        #expect(oracle.differences(from: dump).isEmpty)
    }

    @Test("--until-caught-up --progress-interval: progress lines with consumed, remaining lag, rate and ETA")
    func progressLines() async throws {
        let harness = try PipelineHarness()
        try await harness.startBroker()
        let (events, oracle) = try await harness.generate(patients: 60, days: 5, seed: 14)
        try await harness.publish(events)
        // Tiny batches (one SQLite transaction, fsync included, per 2 records) make the run last several seconds.
        let store = "sqlite:\(harness.directory.path)/observations.sqlite"
        let worker = try harness.startWorker(
            store: store, group: "backfill",
            extra: ["--progress-interval", "0.5", "-X", "statistics.interval.ms=500", "--batch-size", "2"])
        #expect(await worker.waitForExit(timeout: .seconds(120)) == 0, "\(worker.stderr.suffix(2000))")
        let lines = worker.stderr.split(separator: "\n").compactMap { line -> [String: Any]? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                object["msg"] as? String == "progress"
            else { return nil }
            return object
        }
        #expect(lines.count >= 2, "progress lines: \(lines.count)\n\(worker.stderr.suffix(2000))")
        let consumed = lines.compactMap { $0["consumed"] as? Int }
        #expect(consumed.count == lines.count && consumed == consumed.sorted(), "consumed: \(consumed)")
        #expect(lines.allSatisfy { $0["rate_per_s"] is Double || $0["rate_per_s"] is Int })
        let withETA = lines.filter { ($0["remaining_lag"] as? Int ?? 0) > 0 && ($0["eta_s"] as? Int ?? 0) > 0 }
        #expect(!withETA.isEmpty, "no line with a remaining lag and an ETA: \(lines)")
        await #expect(oracle.differences(from: try harness.storeDump(store)).isEmpty)
    }

    @Test("All brokers down: /readyz turns 503, and 200 again once a broker is back; /healthz stays 200")
    func readinessFollowsTheBrokers() async throws {
        let harness = try PipelineHarness()
        try await harness.startBroker()
        let store = "sqlite:\(harness.directory.path)/observations.sqlite"
        let worker = try harness.startWorker(store: store, untilCaughtUp: false)
        let probe = try await WorkerProbe(worker)
        #expect(await eventually(timeout: .seconds(30)) { await probe.get("/readyz")?.status == 200 })
        for broker in 1...3 { _ = try await harness.control("down \(broker)") }
        // A category, never an error's text.
        let down = await eventually(timeout: .seconds(30)) {
            await probe.get("/readyz").map { $0.status == 503 && $0.body == "broker-unavailable\n" } == true
        }
        let answer = await probe.get("/readyz")?.body ?? "no answer"
        #expect(down, "not ready (broker-unavailable) never reported: \(answer)")
        #expect(await probe.get("/healthz")?.status == 200)
        for broker in 1...3 { _ = try await harness.control("up \(broker)") }
        let back = await eventually(timeout: .seconds(40)) { await probe.get("/readyz")?.status == 200 }
        let reason = await probe.get("/readyz")?.body ?? "no answer"
        #expect(back, "ready never came back: \(reason)")
        worker.signal(SIGTERM)
        let status = await worker.waitForExit(timeout: .seconds(30))
        #expect(status == 0, "\(ChildProcess.describe(status)) after SIGTERM: \(worker.stderr.suffix(1500))")
    }
}
