import DailyValueContract
import Foundation
import TestSupport
import Testing

/// The catalog-driven rules of issue 12 items 1-2 in the published schema, checked with Python `jsonschema` and the
/// decoder side by side: `unit` required per metric (`MissingUnit`), and the `blood_pressure` panel.
@Suite struct SchemaContractChangeTests {
    /// The metrics whose unit is universal (issue 12 item 1): the only ones that may omit `unit`.
    static let universalUnit: Set<String> = [
        "steps", "flights_climbed", "heart_rate", "resting_heart_rate", "walking_heart_rate_average",
        "respiratory_rate", "heart_rate_recovery_one_minute", "swimming_stroke_count", "push_count", "stand_hours",
        "number_of_times_fallen", "inhaler_usage", "uv_exposure",
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

    /// Checks each case with both the schema and the decoder: both must give the expected verdict, and the
    /// decoder's rejection must be the expected reason.
    static func expectBoth(_ cases: [(event: String, rejected: DailyValueError.Kind?)]) async throws {
        let verdicts = try await verdicts(DailyValueSchema(catalog: .builtin), cases.map(\.event))
        for (index, check) in cases.enumerated() {
            #expect(verdicts[index].accepts == (check.rejected == nil), "\(check.event): \(verdicts[index].errors)")
            let decoded = Result {
                try SchemaAgreementTests.decoder.decode(Array(check.event.utf8), recordTimestampMs: 0)
            }
            switch decoded {
            case .success: #expect(check.rejected == nil, "\(check.event): decoder accepted")
            case .failure(let error as DailyValueError):
                #expect(error.kind == check.rejected, "\(check.event): decoder \(error)")
            case .failure(let error): Issue.record("\(check.event): \(error)")
            }
        }
    }

    /// The catalog flag is the rule: exactly the universal-unit metrics may omit `unit`.
    @Test func unitMayBeOmittedOnlyWhereTheUnitIsUniversal() {
        let optional = MetricCatalog.builtin.allMetrics.filter(DailyValueSchema.unitMayBeOmitted).map(\.key)
        #expect(Set(optional) == Self.universalUnit)
    }

    /// The schema's unit rule is the decoder's: an event without `unit` decodes exactly for the metrics where
    /// ``DailyValueSchema/unitMayBeOmitted(_:)`` says so (this fails when the decoder changes the rule alone).
    @Test(arguments: MetricCatalog.builtin.allMetrics.filter { !$0.isPanel }.map(\.key))
    func unitRuleMatchesTheDecoder(_ key: String) throws {
        let metric = try #require(MetricCatalog.builtin[key])
        let middle = (metric.plausibleMin + metric.plausibleMax) / 2
        let event = Self.event(metric: metric.key, "\"value\":\(middle)")
        let decoded = Result { try SchemaAgreementTests.decoder.decode(Array(event.utf8), recordTimestampMs: 0) }
        #expect(((try? decoded.get()) != nil) == DailyValueSchema.unitMayBeOmitted(metric), "\(decoded)")
    }

    @Test func unitRequiredWhereTheRuleSaysSo() async throws {
        try await Self.expectBoth([
            (Self.event(metric: "blood_glucose", #""value":95"#), .missingUnit),
            (Self.event(metric: "blood_glucose", #""value":95,"unit":null"#), .missingUnit),
            (Self.event(metric: "blood_glucose", #""value":95,"unit":"mg/dL""#), nil),
            (Self.event(metric: "body_mass", #""value":80"#), .missingUnit),
            (Self.event(metric: "body_mass", #""value":180,"unit":"[lb_av]""#), nil),
            (Self.event(metric: "sleep_duration", #""value":7.5"#), .missingUnit),
            (Self.event(metric: "steps", #""value":8042"#), nil),
            (Self.event(metric: "heart_rate", #""value":71"#), nil),
        ])
    }

    @Test func bloodPressurePanel() async throws {
        let bp = { (members: String) in Self.event(metric: "blood_pressure", members) }
        try await Self.expectBoth([
            (bp(#""unit":"mm[Hg]","systolic":{"value":121,"min":104,"max":150},"diastolic":{"value":79}"#), nil),
            (bp(#""unit":"mm[Hg]","systolic":{"value":121},"diastolic":{"value":79},"value":null"#), nil),
            (bp(#""unit":"mm[Hg]","systolic":{"value":300},"diastolic":{"value":20,"min":20,"max":21}"#), nil),
            (bp(#""systolic":{"value":121},"diastolic":{"value":79}"#), .missingUnit),
            (bp(#""unit":"kPa","systolic":{"value":16},"diastolic":{"value":10}"#), .invalidUnit),
            (bp(#""unit":"mm[Hg]","systolic":{"value":121},"diastolic":{"value":79},"value":100"#), .conflictingFields),
            (bp(#""unit":"mm[Hg]","systolic":{"value":121},"diastolic":{"value":79},"min":70"#), .conflictingFields),
            (bp(#""unit":"mm[Hg]","systolic":{"value":121}"#), .missingField),
            (bp(#""unit":"mm[Hg]","systolic":121,"diastolic":{"value":79}"#), .invalidFieldType),
            (bp(#""unit":"mm[Hg]","systolic":{"min":110},"diastolic":{"value":79}"#), .missingField),
            (bp(#""unit":"mm[Hg]","systolic":{"value":"121"},"diastolic":{"value":79}"#), .invalidFieldType),
            // Component ranges come from the catalog's components: systolic 40-300, diastolic 20-200.
            (bp(#""unit":"mm[Hg]","systolic":{"value":30},"diastolic":{"value":25}"#), .valueOutOfRange),
            (bp(#""unit":"mm[Hg]","systolic":{"value":121},"diastolic":{"value":250}"#), .valueOutOfRange),
            (bp(#""unit":"mm[Hg]","systolic":{"value":121,"max":301},"diastolic":{"value":79}"#), .valueOutOfRange),
            // A panel's members belong to the panel: any other metric rejects them (null means absent).
            (Self.event(metric: "heart_rate", #""value":71,"systolic":{"value":5}"#), .conflictingFields),
            (Self.event(metric: "heart_rate", #""value":71,"diastolic":null"#), nil),
        ])
    }
}
