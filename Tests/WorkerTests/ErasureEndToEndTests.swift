import Foundation
import Kafka
import StoreCore
import TestSupport
import Testing

/// Erasure through the whole pipeline (docs/PRIVACY.md), on each SQL store: after `storectl erase`, late and new
/// events of the person are counted `erased` and never stored, their invalid events are dropped instead of
/// dead-lettered, and a replay in a new group from the earliest offset stores nothing of them while everyone else's
/// rows come out as before.
@Suite("Erasure end to end", .serialized, .timeLimit(.minutes(5)))
struct ErasureEndToEndTests {
    static let idKey = "test-id-key-0123456789abcdef"

    @Test("erased person: late events erased, invalid ones dropped, a new-group replay stores nothing of them", arguments: SQLStoreKind.allCases)
    func erasureSurvivesLateEventsAndReplay(kind: SQLStoreKind) async throws {
        let harness = try PipelineHarness()
        try await harness.startBroker()
        let (events, oracle) = try await harness.generate(
            patients: 12, days: 4, seed: 31, extra: EndToEndTests.messyStream)
        try await harness.publish(events)
        let store = try await kind.freshLocation(in: harness.directory)
        let live = try harness.startWorker(store: store, group: "live")
        #expect(await live.waitForExit(timeout: .seconds(120)) == 0, "\(live.stderr.suffix(2000))")
        #expect(oracle.differences(from: try await harness.storeDump(store)).isEmpty)

        let person = try #require(oracle.versions.keys.map { String($0.split(separator: "/")[0]) }.min())
        let theirs = oracle.versions.filter { $0.key.hasPrefix(person + "/") }
        let others = oracle.versions.filter { !$0.key.hasPrefix(person + "/") }
        let before = try await kind.storedObservations(store).filter { !$0.key.hasPrefix(person + "/") }
        let erase = try await runCommand(
            TestEnvironment.binary("storectl"),
            ["erase", "--store", store, "--patient", person, "--reference", "DSR-31"],
            environment: ["DVP_ID_KEY": Self.idKey])
        #expect(erase.status == 0, "\(erase.stderr)")
        #expect(erase.stdout.contains("deleted \(theirs.count) Observations"), "\(erase.stdout)")

        // Late and new events of the person, and an invalid one, after the erase.
        let late = harness.directory.appendingPathComponent("late.jsonl")
        let day = try #require(theirs.keys.min()).split(separator: "/")
        let lines = [
            #"{"schema":1,"patient":"\#(person)","metric":"\#(day[1])","day":"\#(day[2])","utcOffset":"+01:00","value":80,"version":99999999999999}"#,
            #"{"schema":1,"patient":"\#(person)","metric":"steps","day":"2026-09-03","utcOffset":"+01:00","value":812,"version":1}"#,
            #"{"schema":1,"patient":"\#(person)","metric":"no-such-metric","day":"2026-09-03","utcOffset":"+01:00","value":1}"#,
        ]
        try (lines.joined(separator: "\n") + "\n").write(to: late, atomically: true, encoding: .utf8)
        let deadLettersBefore = try await harness.deadLetters().count
        try await harness.publish(late)
        let again = try harness.startWorker(store: store, group: "live", name: "live-2")
        #expect(await again.waitForExit(timeout: .seconds(120)) == 0, "\(again.stderr.suffix(2000))")
        let summary = parseSummary(again.stdout)
        #expect(summary["erased"] == 3, "\(again.stdout)")
        #expect(try await harness.deadLetters().count == deadLettersBefore, "an erased person's event was dead-lettered")
        #expect(try await harness.storeDump(store).keys.filter { $0.hasPrefix(person + "/") }.isEmpty)

        // A new group from the earliest offset: nothing of the person; everyone else's rows as before.
        let replay = try harness.startWorker(store: store, group: "replay", extra: ["--start", "earliest"], name: "replay")
        #expect(await replay.waitForExit(timeout: .seconds(120)) == 0, "\(replay.stderr.suffix(2000))")
        let replayed = parseSummary(replay.stdout)
        #expect((replayed["erased"] ?? 0) >= Int64(theirs.count), "\(replay.stdout)")
        #expect(replayed["inserted"] == 0 && replayed["updated"] == 0, "\(replay.stdout)")
        let dump = try await harness.storeDump(store)
        #expect(dump.keys.filter { $0.hasPrefix(person + "/") }.isEmpty, "the replay resurrected the person")
        var expected = oracle
        expected.versions = others
        #expect(expected.differences(from: dump).isEmpty)
        #expect(try await kind.storedObservations(store) == before, "another person's rows changed")
    }
}
