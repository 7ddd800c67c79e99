import DailyValueContract
import Foundation
import ObservationUpsert
import Testing

/// The size budget of issue 12: every emitted resource ≤ 1,600 bytes of compact JSON, with min/max and the longest
/// strings the contract allows.
@Suite struct ResourceSizeTests {
    static let budget = 1_600

    /// The longest allowed strings: a 64-character patient id, and every kept `source` field at its limit.
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
        let record = try Fixtures.mapper.map(Self.longest(metric), recordTimestampMs: Fixtures.ms("2026-11-01T06:15:03Z"))
        print("SIZE \(key) \(record.resource.utf8.count)")
        #expect(record.resource.utf8.count <= Self.budget, "\(key): \(record.resource.utf8.count) bytes")
    }
}
extension ResourceSizeTests {
    @Test func dump() throws {
        for key in ["heart_rate", "blood_pressure"] {
            var v = ObservationSamples.value(for: MetricCatalog.builtin[key]!)
            v.patient = String(repeating: "P", count: 64)
            print("DUMP", try Fixtures.mapper.map(v, recordTimestampMs: Fixtures.ms("2026-11-01T06:15:03Z")).resource)
        }
    }
}
