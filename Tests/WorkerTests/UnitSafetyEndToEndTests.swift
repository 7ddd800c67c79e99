import Foundation
import Kafka
import TestSupport
import Testing

/// Issue 12 through the real worker (devbroker + producer + worker + SQLite): a risky metric without `unit` is
/// dead-lettered as `MissingUnit`, never stored; a universal-unit metric without it is stored; a source field over
/// its stored cap is left out and the value stored.
@Suite("Unit safety end to end", .serialized, .timeLimit(.minutes(3)))
struct UnitSafetyEndToEndTests {
    static func recentDay() -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: Date().addingTimeInterval(-3 * 86_400))
    }

    static func event(_ patient: String, _ metric: String, _ members: String) -> String {
        #"{"schema":1,"patient":"\#(patient)","metric":"\#(metric)","day":"\#(recentDay())","utcOffset":"+01:00",\#(members)}"#
    }

    @Test func riskyMetricWithoutUnitIsDeadLetteredAsMissingUnit() async throws {
        let harness = try PipelineHarness(partitions: 2)
        try await harness.startBroker()
        let longModel = String(repeating: "m", count: 40)
        let lines = [
            Self.event("p-1", "blood_glucose", #""value":15.2,"version":1"#),
            Self.event("p-2", "steps", #""value":8042,"version":1"#),
            Self.event(
                "p-3", "blood_glucose",
                #""value":95,"unit":"mg/dL","version":1,"source":{"model":"\#(longModel)","softwareVersion":"11.1"}"#),
        ]
        let events = harness.directory.appendingPathComponent("events.jsonl")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: events)
        try await harness.publish(events)
        let store = "sqlite:\(harness.directory.path)/observations.sqlite"

        let worker = try harness.startWorker(store: store)
        #expect(await worker.waitForExit(timeout: .seconds(120)) == 0, "worker: \(worker.stderr.suffix(2000))")

        let deadLetters = try await harness.deadLetters()
        #expect(deadLetters.count == 1)
        let record = try #require(deadLetters.first)
        let headers = Dictionary(
            record.headers.map { ($0.key, String(decoding: $0.value ?? [], as: UTF8.self)) },
            uniquingKeysWith: { a, _ in a })
        #expect(headers["__connect.errors.exception.class.name"] == "MissingUnit")
        #expect(headers["__connect.errors.exception.message"]?.contains("`unit`") == true)
        #expect(record.value == Array(lines[0].utf8), "the original event is kept whole")

        let day = Self.recentDay()
        let dump = try await harness.storeDump(store)
        #expect(
            Set(dump.keys) == ["p-2/steps/\(day)", "p-3/blood_glucose/\(day)"], "glucose without a unit not stored")
        let shown = try await runCommand(
            TestEnvironment.binary("storectl"), ["show", "--store", store, "p-3/blood_glucose/\(day)"])
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout.contains(#"{"url":"softwareVersion","valueString":"11.1"}"#))
        #expect(!shown.stdout.contains(longModel), "a model over its cap is left out")
        #expect(parseSummary(worker.stdout)["dead-lettered"] == 1)
    }
}
