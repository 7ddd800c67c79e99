import Foundation
import Kafka
import StoreCore
import TestSupport
import Testing

@testable import WorkerCore

/// Issue 28 row 5 through the real worker (devbroker, worker process, SQLite, storectl): a correction sent under a
/// reused version keeps the first stored value but is counted `conflict` (run summary, `storectl counts`) and logged
/// without patient data; a true duplicate stays `unchanged`; with `--on-version-conflict dead-letter` it is also
/// dead-lettered (class `VersionConflict`, stage `STORE`).
@Suite(.serialized, .timeLimit(.minutes(3)))
struct VersionConflictEndToEndTests {
    private static func event(_ patient: String, value: Int, version: Int) -> String {
        #"{"schema":1,"patient":"\#(patient)","metric":"heart_rate","day":"2026-11-20","utcOffset":"+01:00","#
            + #""value":\#(value),"unit":"/min","version":\#(version),"status":"final"}"#
    }

    /// One partition, so that the offsets are 0…3 in this order: the value, the correction under its version, a
    /// true duplicate, another day.
    private static let events = [
        event("p-conflict-1", value: 60, version: 5), event("p-conflict-1", value: 70, version: 5),
        event("p-conflict-1", value: 60, version: 5), event("p-conflict-2", value: 65, version: 5),
    ]

    private func publishedHarness() async throws -> PipelineHarness {
        let harness = try PipelineHarness(partitions: 1)
        try await harness.startBroker()
        let file = harness.directory.appendingPathComponent("events.jsonl")
        try (Self.events.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
        try await harness.publish(file)
        return harness
    }

    /// The stored clinical value of the conflicting day.
    /// The stored resource's `valueQuantity` onwards, as the store reads it back.
    private func storedValue(_ kind: SQLStoreKind, _ store: String) async throws -> String {
        let rows = try await kind.storedObservations(store)
        guard let resource = rows.first(where: { $0.key.hasPrefix("p-conflict-1/") })?.value.resource,
            let start = resource.range(of: #""valueQuantity""#)
        else { return "" }
        return String(resource[start.lowerBound...])
    }

    private static let first = #""valueQuantity":{"value":60,"#

    /// One record per batch: the correction meets the version cache (which must not answer it `unchanged`) and
    /// then the store; the duplicate after it is answered by the cache.
    @Test(
        "A correction under a reused version: counted conflict, logged without PHI, the first value kept",
        arguments: SQLStoreKind.allCases)
    func countedAndLogged(kind: SQLStoreKind) async throws {
        let harness = try await publishedHarness()
        let store = try await kind.freshLocation(in: harness.directory)
        let worker = try harness.startWorker(store: store, extra: ["--batch-size", "1"])
        #expect(await worker.waitForExit(timeout: .seconds(120)) == 0, "worker: \(worker.stderr.suffix(2000))")

        let summary = parseSummary(worker.stdout)
        #expect(summary["inserted"] == 2)
        #expect(summary["conflict"] == 1, "\(worker.stdout)")
        #expect(summary["unchanged"] == 1)
        #expect(summary["dead-lettered"] == 0)
        let kept = try await storedValue(kind, store)
        #expect(kept.hasPrefix(Self.first), "the first stored value wins: \(kept)")

        let warnings = worker.stderr.split(separator: "\n").filter { $0.contains("version conflict") }
        #expect(warnings.count == 1, "\(worker.stderr.suffix(2000))")
        for line in warnings {
            #expect(line.contains(#""offset":1"#) && line.contains(#""partition":0"#), "\(line)")
            #expect(!line.contains("p-conflict") && !line.contains(#"value""#), "PHI in the log: \(line)")
        }

        let counts = try await runCommand(TestEnvironment.binary("storectl"), ["counts", "--store", store])
        let rows = counts.stdout.split(separator: "\n").map { $0.split(whereSeparator: \.isWhitespace) }
        let header = try #require(rows.first { $0.first == "metric" }, "\(counts.stdout)")
        let all = try #require(rows.first { $0.first == "(all)" }, "\(counts.stdout)")
        let column = try #require(header.firstIndex(of: "conflict"), "no conflict column: \(counts.stdout)")
        #expect(all[column] == "1", "\(counts.stdout)")
        #expect(all[try #require(header.firstIndex(of: "unchanged"))] == "0", "answered by the cache, not the store")
    }

    @Test("--on-version-conflict dead-letter: the correction also goes to the dead-letter topic")
    func deadLettered() async throws {
        let harness = try await publishedHarness()
        let database = "\(harness.directory.path)/observations.sqlite"
        let worker = try harness.startWorker(
            store: "sqlite:\(database)", extra: ["--on-version-conflict", "dead-letter"])
        #expect(await worker.waitForExit(timeout: .seconds(120)) == 0, "worker: \(worker.stderr.suffix(2000))")

        let summary = parseSummary(worker.stdout)
        #expect(summary["conflict"] == 1, "\(worker.stdout)")
        #expect(summary["unchanged"] == 1)
        #expect(summary["dead-lettered"] == 1)
        await #expect(try storedValue(.sqlite, "sqlite:" + database).hasPrefix(Self.first))

        let deadLetters = try await harness.deadLetters()
        try #require(deadLetters.count == 1)
        let headers = Dictionary(
            deadLetters[0].headers.map { ($0.key, String(decoding: $0.value ?? [], as: UTF8.self)) },
            uniquingKeysWith: { a, _ in a })
        #expect(headers["__connect.errors.exception.class.name"] == "VersionConflict")
        #expect(headers["__connect.errors.stage"] == "STORE")
        #expect(headers["__connect.errors.offset"] == "1")
        #expect(headers["__connect.errors.exception.message"]?.contains("sync-version rule") == true)
        #expect(String(decoding: deadLetters[0].value, as: UTF8.self) == Self.events[1], "the original bytes")
        #expect(worker.stderr.contains(#""action":"dead-letter""#))
        for p in try await harness.committedVersusEnd(group: "workers") {
            #expect(p.committed == p.end, "partition \(p.partition): committed \(p.committed), end \(p.end)")
        }
    }

    /// PostgreSQL's pre-warm read (a worker with an empty cache) brings the stored clinical value with the version:
    /// a replayed duplicate is answered by the cache, the correction still reaches the store and is a conflict.
    @Test("PostgreSQL, a fresh worker replaying: the pre-warmed cache answers duplicates, not the correction")
    func prewarmedReplay() async throws {
        let harness = try await publishedHarness()
        let store = try await SQLStoreKind.postgres.freshLocation(in: harness.directory)
        let live = try harness.startWorker(store: store, group: "live", extra: ["--batch-size", "1"])
        #expect(await live.waitForExit(timeout: .seconds(120)) == 0, "worker: \(live.stderr.suffix(2000))")

        let replay = try harness.startWorker(
            store: store, group: "replay", extra: ["--batch-size", "1", "--start", "earliest"], name: "replay")
        #expect(await replay.waitForExit(timeout: .seconds(120)) == 0, "replay: \(replay.stderr.suffix(2000))")
        let summary = parseSummary(replay.stdout)
        #expect(summary["conflict"] == 1, "\(replay.stdout)")
        #expect(summary["unchanged"] == 3, "\(replay.stdout)")
        #expect(replay.stdout.contains("(3 answered by the version cache)"), "\(replay.stdout)")
        await #expect(try storedValue(.postgres, store).hasPrefix(Self.first))
    }

    @Test("--on-version-conflict (or DVP_ON_VERSION_CONFLICT): ignore by default, or dead-letter; no echo")
    func optionIsParsed() throws {
        let base = ["--brokers", "b:1", "--allow-development-key"]
        #expect(try WorkerConfiguration.parse(base, environment: [:])?.onVersionConflict == .ignore)
        #expect(
            try WorkerConfiguration.parse(base + ["--on-version-conflict", "dead-letter"], environment: [:])?
                .onVersionConflict == .deadLetter)
        #expect(
            try WorkerConfiguration.parse(base, environment: ["DVP_ON_VERSION_CONFLICT": "dead-letter"])?
                .onVersionConflict == .deadLetter)
        #expect {
            _ = try WorkerConfiguration.parse(base + ["--on-version-conflict", "s3cr3t"], environment: [:])
        } throws: { error in
            "\(error)".contains("--on-version-conflict") && !"\(error)".contains("s3cr3t")
        }
    }
}
