import DailyValueContract
import Foundation
import ObservationMapping
import Testing

/// DailyValues covering every catalog metric and the DST / odd-offset days, shared by the mapper and FHIR tests.
enum ObservationSamples {
    /// A typical value inside the metric's plausible range, with min/max when the metric takes them.
    static func value(
        for metric: Metric, patient: String = "p-000123", day: String = "2026-10-01",
        zone: DailyValue.Zone = .timeZone("Europe/Bratislava")
    ) -> DailyValue {
        func at(_ share: Double, _ low: Double, _ high: Double) -> Double {
            ((low + (high - low) * share) * 10).rounded() / 10
        }
        let range = (metric.plausibleMin, metric.plausibleMax)
        let panel = metric.isPanel
        return DailyValue(
            patient: patient, metric: metric.key, day: day, zone: zone, value: panel ? nil : at(0.4, range.0, range.1),
            min: metric.allowsMinMax && !panel ? at(0.1, range.0, range.1) : nil,
            max: metric.allowsMinMax && !panel ? at(0.7, range.0, range.1) : nil,
            components: metric.components.map { part in
                DailyValue.Component(
                    key: part.key, value: at(0.4, part.plausibleMin, part.plausibleMax),
                    min: at(0.1, part.plausibleMin, part.plausibleMax),
                    max: at(0.7, part.plausibleMin, part.plausibleMax))
            },
            version: 1_759_384_503_000,
            source: .init(name: "Apple Watch", bundleId: "com.apple.health", model: "Watch7,3", softwareVersion: "11.0")
        )
    }

    /// One local day with its expected FHIR period.
    struct Day: Sendable, CustomTestStringConvertible {
        var zone: DailyValue.Zone
        var day: String
        var start: String
        var end: String
        var hours: Double

        var testDescription: String { "\(zone) \(day)" }
    }

    static let days: [Day] = [
        Day(
            zone: .timeZone("Europe/Bratislava"), day: "2026-10-01", start: "2026-10-01T00:00:00+02:00",
            end: "2026-10-02T00:00:00+02:00", hours: 24),
        Day(
            zone: .timeZone("Europe/Bratislava"), day: "2026-03-29", start: "2026-03-29T00:00:00+01:00",
            end: "2026-03-30T00:00:00+02:00", hours: 23),
        Day(
            zone: .timeZone("Europe/Bratislava"), day: "2026-10-25", start: "2026-10-25T00:00:00+02:00",
            end: "2026-10-26T00:00:00+01:00", hours: 25),
        Day(
            zone: .timeZone("America/St_Johns"), day: "2026-01-15", start: "2026-01-15T00:00:00-03:30",
            end: "2026-01-16T00:00:00-03:30", hours: 24),
        Day(
            zone: .timeZone("America/St_Johns"), day: "2026-03-08", start: "2026-03-08T00:00:00-03:30",
            end: "2026-03-09T00:00:00-02:30", hours: 23),
        Day(
            zone: .timeZone("America/St_Johns"), day: "2026-07-01", start: "2026-07-01T00:00:00-02:30",
            end: "2026-07-02T00:00:00-02:30", hours: 24),
        Day(
            zone: .timeZone("Asia/Kathmandu"), day: "2026-10-01", start: "2026-10-01T00:00:00+05:45",
            end: "2026-10-02T00:00:00+05:45", hours: 24),
        Day(
            zone: .timeZone("Pacific/Kiritimati"), day: "2026-10-01", start: "2026-10-01T00:00:00+14:00",
            end: "2026-10-02T00:00:00+14:00", hours: 24),
        Day(
            zone: .timeZone("Australia/Lord_Howe"), day: "2026-10-04", start: "2026-10-04T00:00:00+10:30",
            end: "2026-10-05T00:00:00+11:00", hours: 23.5),
        // Chile starts DST at 24:00: local midnight does not exist, the day begins at 01:00.
        Day(
            zone: .timeZone("America/Santiago"), day: "2026-09-06", start: "2026-09-06T01:00:00-03:00",
            end: "2026-09-07T00:00:00-03:00", hours: 23),
        Day(
            zone: .timeZone("UTC"), day: "2026-10-01", start: "2026-10-01T00:00:00+00:00",
            end: "2026-10-02T00:00:00+00:00", hours: 24),
        Day(
            zone: .utcOffset(seconds: -12_600), day: "2026-10-01", start: "2026-10-01T00:00:00-03:30",
            end: "2026-10-02T00:00:00-03:30", hours: 24),
        Day(
            zone: .utcOffset(seconds: 50_400), day: "2026-10-31", start: "2026-10-31T00:00:00+14:00",
            end: "2026-11-01T00:00:00+14:00", hours: 24),
    ]

    /// Every Observation the tests emit: one per metric, plus one heart-rate Observation per special day.
    static func records() throws -> [String: ObservationRecord] {
        var records: [String: ObservationRecord] = [:]
        let issued = Fixtures.ms("2026-11-01T06:15:03Z")
        for metric in MetricCatalog.builtin.allMetrics {
            records["metric-\(metric.key)"] = try Fixtures.mapper.map(value(for: metric), recordTimestampMs: issued)
        }
        let heartRate = MetricCatalog.builtin["heart_rate"]!
        for (index, day) in days.enumerated() {
            let value = value(for: heartRate, day: day.day, zone: day.zone)
            records["day-\(index)"] = try Fixtures.mapper.map(value, recordTimestampMs: issued)
        }
        var bare = value(for: MetricCatalog.builtin["steps"]!)
        bare.source = nil
        records["steps-no-source"] = try Fixtures.mapper.map(bare, recordTimestampMs: issued)
        var logical = Fixtures.configuration
        logical.subject = .logical(system: "https://hospital.example/patient-ids")
        for key in ["blood_pressure", "heart_rate"] {
            records["logical-\(key)"] = try ObservationMapper(configuration: logical).map(
                value(for: MetricCatalog.builtin[key]!), recordTimestampMs: issued)
        }
        return records
    }
}

extension ObservationRecord {
    /// The resource parsed with Foundation (tests only).
    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(resource.utf8))) as? [String: Any] ?? [:]
    }
}
