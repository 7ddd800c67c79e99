import DailyValueContract
import Foundation
import TestSupport
import Testing

/// The schema generator's pieces for the contract changes of issue 12 items 1-2, checked with Python `jsonschema`
/// before the catalog has them: `unit` required per metric, and the `blood_pressure` panel.
@Suite struct SchemaContractChangeTests {
    /// The metrics whose unit is universal (issue 12 item 1): the only ones that may omit `unit`.
    static let universalUnit: Set<String> = [
        "steps", "flights_climbed", "heart_rate", "resting_heart_rate", "walking_heart_rate_average",
        "respiratory_rate",
    ]

    static func verdicts(_ schema: DailyValueSchema, _ events: [String]) async throws -> [SchemaVerdict] {
        let directory = try ProducerTestSupport.makeDirectory()
        defer { ProducerTestSupport.removeDirectory(directory) }
        let file = directory.appendingPathComponent("schema.json")
        try Data(schema.json().utf8).write(to: file)
        return try await SchemaVerdict.check(events.map { Array($0.utf8) }, schema: file, in: directory)
    }

    static func event(metric: String, _ members: String) -> String {
        #"{"schema":1,"patient":"p-1","metric":"\#(metric)","day":"2026-10-01","utcOffset":"+02:00",\#(members)}"#
    }

    /// The schema's unit rule is the decoder's: an event without `unit` decodes exactly for the metrics where
    /// ``DailyValueSchema/unitMayBeOmitted(_:)`` says so (this fails when the decoder changes the rule alone).
    @Test(arguments: MetricCatalog.builtin.allMetrics.map(\.key).filter { DailyValueSchema.panels[$0] == nil })
    func unitRuleMatchesTheDecoder(_ key: String) throws {
        let metric = try #require(MetricCatalog.builtin[key])
        let middle = (metric.plausibleMin + metric.plausibleMax) / 2
        let event = Self.event(metric: metric.key, "\"value\":\(middle)")
        let decoded = Result { try SchemaAgreementTests.decoder.decode(Array(event.utf8), recordTimestampMs: 0) }
        #expect(((try? decoded.get()) != nil) == DailyValueSchema.unitMayBeOmitted(metric), "\(decoded)")
    }

    @Test func unitRequiredWhereTheRuleSaysSo() async throws {
        let schema = DailyValueSchema(catalog: .builtin) { Self.universalUnit.contains($0.key) }
        let cases: [(event: String, accepted: Bool)] = [
            (Self.event(metric: "blood_glucose", #""value":95"#), false),
            (Self.event(metric: "blood_glucose", #""value":95,"unit":null"#), false),
            (Self.event(metric: "blood_glucose", #""value":95,"unit":"mg/dL""#), true),
            (Self.event(metric: "body_mass", #""value":80"#), false),
            (Self.event(metric: "body_mass", #""value":180,"unit":"[lb_av]""#), true),
            (Self.event(metric: "steps", #""value":8042"#), true),
            (Self.event(metric: "heart_rate", #""value":71"#), true),
        ]
        let verdicts = try await Self.verdicts(schema, cases.map(\.event))
        for (index, check) in cases.enumerated() {
            #expect(verdicts[index].accepts == check.accepted, "\(check.event): \(verdicts[index].errors)")
        }
        let current = try await Self.verdicts(DailyValueSchema(catalog: .builtin), [cases[0].event])
        #expect(current[0].accepts, "today's rule lets glucose omit its unit")
    }

    @Test func bloodPressurePanelOnceTheCatalogHasIt() async throws {
        let panel = Metric(
            key: "blood_pressure", codings: [.loinc("85354-9", "Blood pressure panel")],
            text: "Blood pressure, daily mean", ucum: "mm[Hg]", unitDisplay: "mmHg", aggregation: .mean,
            category: .vitalSigns, plausibleMin: 20, plausibleMax: 300, allowsMinMax: true)
        let catalog = try MetricCatalog(metrics: MetricCatalog.builtin.allMetrics + [panel])
        #expect(!DailyValueSchema(catalog: .builtin).json().contains("\"systolic\""), "inactive without the metric")
        let bp = { (members: String) in Self.event(metric: "blood_pressure", members) }
        let cases: [(event: String, accepted: Bool)] = [
            (bp(#""unit":"mm[Hg]","systolic":{"value":121,"min":104,"max":150},"diastolic":{"value":79}"#), true),
            (bp(#""unit":"mm[Hg]","systolic":{"value":121},"diastolic":{"value":79},"value":null"#), true),
            (bp(#""systolic":{"value":121},"diastolic":{"value":79}"#), false),
            (bp(#""unit":"kPa","systolic":{"value":16},"diastolic":{"value":10}"#), false),
            (bp(#""unit":"mm[Hg]","systolic":{"value":121},"diastolic":{"value":79},"value":100"#), false),
            (bp(#""unit":"mm[Hg]","systolic":{"value":121},"diastolic":{"value":79},"min":70"#), false),
            (bp(#""unit":"mm[Hg]","systolic":{"value":121}"#), false),
            (bp(#""unit":"mm[Hg]","systolic":121,"diastolic":{"value":79}"#), false),
            (bp(#""unit":"mm[Hg]","systolic":{"min":110},"diastolic":{"value":79}"#), false),
            (bp(#""unit":"mm[Hg]","systolic":{"value":"121"},"diastolic":{"value":79}"#), false),
            // Component ranges come from the systolic (40-300) and diastolic (20-200) catalog entries.
            (bp(#""unit":"mm[Hg]","systolic":{"value":30},"diastolic":{"value":25}"#), false),
            (bp(#""unit":"mm[Hg]","systolic":{"value":121},"diastolic":{"value":250}"#), false),
            (bp(#""unit":"mm[Hg]","systolic":{"value":121,"max":301},"diastolic":{"value":79}"#), false),
            // The panel's components do not leak into other metrics: there they are unknown members.
            (Self.event(metric: "heart_rate", #""value":71,"systolic":5"#), true),
        ]
        let verdicts = try await Self.verdicts(DailyValueSchema(catalog: catalog), cases.map(\.event))
        for (index, check) in cases.enumerated() {
            #expect(verdicts[index].accepts == check.accepted, "\(check.event): \(verdicts[index].errors)")
        }
    }
}
