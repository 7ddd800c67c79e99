import DailyValueContract
import Foundation
import ObservationMapping
import TestSupport
import Testing

/// The size budget of issue 12: every stored resource ≤ 1,600 bytes of compact JSON, measured with min/max and the
/// longest strings the contract allows (a 64-character patient id, every stored `source` field at its cap, the
/// longest `meta.versionId`); ≤ 1,100 bytes on average over the demo's metric mix (`producer generate`).
///
/// Metrics that do not fit carry their measured ceiling in ``overBudget`` (docs/CLINICAL.md "Size"): the test fails
/// when one grows past it, and when one fits again (so the pin is removed). The device name (opt-in) is outside.
@Suite struct ResourceSizeTests {
    static let budget = 1_600
    static let averageBudget = 1_100
    /// Measured ceilings of the metrics over ``budget``: daily means with the `average` method and two
    /// observation-statistics components, the heart rate with its two 24-hour components, and the panel.
    /// The panel grew by its four product statistics codings (issue 28: 2,639 → 2,914 bytes).
    static let overBudget: [String: Int] = [
        "blood_pressure": 2_920, "blood_pressure_systolic": 1_920, "blood_pressure_diastolic": 1_920,
        "body_temperature": 1_880, "blood_glucose": 1_880, "oxygen_saturation": 1_900, "respiratory_rate": 1_900,
        "heart_rate_variability_sdnn": 1_930, "heart_rate": 1_720,
    ]
    /// The measured demo-mix average in the stored form (the budget is ``averageBudget``).
    static let averageCeiling = 1_390

    static func longest(_ metric: Metric) -> DailyValue {
        let policy = ValidationPolicy()
        var value = ObservationSamples.value(
            for: metric, patient: String(repeating: "P", count: 64), day: "2026-10-25",
            zone: .timeZone("America/Argentina/ComodRivadavia"))
        // Not hex digits: a long hex run would be dropped as a device identifier and not measured.
        value.source = DailyValue.Source(
            name: String(repeating: "n", count: policy.maxSourceFieldBytes),
            bundleId: "com." + String(repeating: "x", count: policy.maxBundleIdBytes - 4),
            model: "W" + String(repeating: "1", count: policy.maxModelBytes - 3) + ",1",  // a hardware model id
            softwareVersion: String(repeating: "v", count: policy.maxSoftwareVersionBytes))
        return value
    }

    /// The resource as the stores write it: the mapped parts around `meta.versionId` and `meta.lastUpdated`
    /// (``StoredResourceSQL``) and in the status slot, here with the longest version id (Int64.max) and the longest
    /// status (`entered-in-error`).
    static func stored(_ record: ObservationRecord) -> String {
        record.resourceHead + #""versionId":"9223372036854775807","lastUpdated":"2026-11-01T06:15:03.123Z","#
            + record.resourceBody(status: .enteredInError)
    }

    @Test(arguments: MetricCatalog.builtin.allMetrics.map(\.key))
    func everyMetricWithTheLongestStringsFitsTheBudget(key: String) throws {
        let metric = MetricCatalog.builtin[key]!
        let issued = Fixtures.ms("2026-11-01T06:15:03Z")
        let record = try Fixtures.mapper.map(Self.longest(metric), recordTimestampMs: issued)
        #expect(record.resource.contains("com.xxxx") && record.resource.contains("W1111"), "provenance measured")
        let size = Self.stored(record).utf8.count
        print("resource size \(key): \(size) bytes at the longest strings")
        #expect(size <= Self.overBudget[key, default: Self.budget], "\(key): \(size) bytes")
        if Self.overBudget[key] != nil { #expect(size > Self.budget, "\(key) fits now: remove its pin") }
    }

    /// The average stored size over `producer generate`'s metric mix (what the demo stores; its summary prints the
    /// same figure from the store, `storectl sizes`).
    @Test func demoMixAverage() async throws {
        let generated = try await ChildProcess.run(
            TestEnvironment.binary("producer"),
            ["generate", "--patients", "40", "--days", "14", "--start-day", "2026-10-01", "--seed", "42", "--out", "-"])
        #expect(generated.status == 0, "\(generated.stderr)")
        var sizes: [String: [Int]] = [:]
        for line in generated.stdoutData.split(separator: 0x0A) {
            let value = try Fixtures.decoder.validate(Array(line), recordTimestampMs: nil)
            let record = try Fixtures.mapper.map(value, recordTimestampMs: Fixtures.ms("2026-11-01T06:15:03Z"))
            sizes[value.event.metric, default: []].append(Self.stored(record).utf8.count)
        }
        let all = sizes.values.flatMap { $0 }
        let average = all.reduce(0, +) / max(all.count, 1)
        print("demo-mix average \(average) bytes over \(all.count) resources (budget \(Self.averageBudget))")
        #expect(all.count > 5_000 && sizes["blood_pressure"] != nil)
        #expect(average <= Self.averageCeiling)
        #expect(average > Self.averageBudget, "the average fits now: assert the budget instead of the ceiling")
    }

    @Test func theDeviceNameIsStoredOnlyWithTheOptIn() throws {
        let value = ObservationSamples.value(for: MetricCatalog.builtin["steps"]!)
        let issued = Fixtures.ms("2026-11-01T06:15:03Z")
        #expect(
            !(try Fixtures.mapper.map(value, recordTimestampMs: issued).resource.contains(
                #""valueString":"Apple Watch""#)))
        var configuration = Fixtures.configuration
        configuration.storesDeviceName = true
        let optedIn = try ObservationMapper(configuration: configuration).map(value, recordTimestampMs: issued)
        #expect(optedIn.resource.contains(#"{"url":"name","valueString":"Apple Watch"}"#))
    }

    @Test func bundleIdSegmentsThatIdentifyADeviceAreDropped() throws {
        var value = ObservationSamples.value(for: MetricCatalog.builtin["steps"]!)
        value.source?.bundleId = "com.apple.health.8F2C1A77-0000-4E5B-9D1A-5A5C0B7E4C11"
        let resource = try Fixtures.mapper.map(value, recordTimestampMs: 0).resource
        #expect(resource.contains(#"{"url":"bundleIdentifier","valueString":"com.apple.health"}"#))
        #expect(!resource.contains("8F2C1A77"))
        value.source?.bundleId = "0123456789abcdef0123"
        #expect(!(try Fixtures.mapper.map(value, recordTimestampMs: 0).resource.contains("bundleIdentifier")))
    }

    @Test(
        arguments: [
            ("com.apple.health", "com.apple.health"),
            ("com.x.8F2C1A77-0000-4E5B-9D1A-5A5C0B7E4C11.watch", "com.x.watch"),
            ("com.x.8F2C1A770000-4E5B-9D1A-5A5C0B7E4C11-", "com.x.8F2C1A770000-4E5B-9D1A-5A5C0B7E4C11-"),  // not 8-4-4-4-12
            ("com.x.8F2C1A77-0000-4E5B-9D1A-5A5C0B7E4C1G", "com.x.8F2C1A77-0000-4E5B-9D1A-5A5C0B7E4C1G"),  // G: not hex
            ("com.x.0123456789abcdef", "com.x"), ("com.x.0123456789abcde", "com.x.0123456789abcde"),  // 16 vs 15 digits
            ("com.x." + String(repeating: "a", count: 36), "com.x"), ("com..x.", "com..x."), ("", ""),
            ("0123456789ABCDEF0123", nil), ("Zoë.app", "Zoë.app"),
            // Found by the fuzzer: what was left beside a device identifier was an empty id, which the contract rejects.
            ("0123456789ABCDEF0123.", nil), (".0123456789ABCDEF0123", nil), (" .0123456789ABCDEF0123. ", nil),
            ("com.x.0123456789abcdef.", "com.x"), ("com..0123456789abcdef. .x", "com.x"),
        ] as [(String, String?)])
    func bundleIdDeviceSegmentRule(bundleId: String, kept: String?) {
        #expect(SourceProvenance.bundleIdWithoutDeviceIDs(bundleId) == kept)
    }

    @Test func logicalSubjectReference() throws {
        var configuration = Fixtures.configuration
        configuration.subject = .logical(system: "https://hospital.example/patient-ids")
        let record = try ObservationMapper(configuration: configuration).map(
            ObservationSamples.value(for: MetricCatalog.builtin["steps"]!), recordTimestampMs: 0)
        #expect(
            record.resource.contains(
                #""subject":{"identifier":{"system":"https://hospital.example/patient-ids","value":"p-000123"}}"#))
        configuration.subject = .logical(system: "not a uri")
        #expect(throws: ObservationMapper.ConfigurationError.self) {
            try ObservationMapper(configuration: configuration)
        }
    }
}
