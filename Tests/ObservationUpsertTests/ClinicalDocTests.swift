import DailyValueContract
import Foundation
import Testing

/// docs/CLINICAL.md's metric table is checked against the catalog, row by row (codings, unit rule, aggregation,
/// category, profile); the profiles themselves are checked on every emitted resource by validate_fhir.py's lint.
@Suite struct ClinicalDocTests {
    /// The R4 profile a metric's Observations conform to: the lint's `profile_of` (scripts/validate_fhir.py).
    static func profile(_ metric: Metric) -> String {
        guard metric.category == .vitalSigns else { return "Observation (R4 base)" }
        let profiles = [
            "8867-4": "heartrate", "9279-1": "resprate", "2708-6": "oxygensat", "29463-7": "bodyweight",
            "8302-2": "bodyheight", "39156-5": "bmi", "8310-5": "bodytemp", "85354-9": "bp",
        ]
        let loinc = metric.codings.first { $0.system == FHIRCoding.loincSystem && profiles[$0.code] != nil }
        return loinc.map { profiles[$0.code]! } ?? "vitalsigns"
    }

    static func row(_ m: Metric) -> String {
        var codings = m.codings.map { ($0.system == FHIRCoding.loincSystem ? "LOINC " : "HK ") + $0.code }
            .joined(separator: ", ")
        if m.isPanel {
            codings +=
                "; components "
                + m.components.map { $0.codings.map(\.code).joined(separator: "+") }
                .joined(separator: ", ")
        }
        let unit = "`\(m.ucum)` " + (m.unitOptional ? "may be omitted" : "required")
        let stated = m.methodStatistic.map { " (method \($0))" } ?? (m.codesAggregation ? " (coded)" : "")
        let aggregation = m.aggregation.rawValue + ([.mean, .maximum].contains(m.aggregation) ? stated : "")
        return "| `\(m.key)` | \(codings) | \(unit) | \(aggregation) | \(m.category?.rawValue ?? "none") | \(profile(m)) |"
    }

    @Test func theMetricTableMatchesTheCatalog() throws {
        let text = try String(
            contentsOf: Fixtures.packageRoot().appendingPathComponent("docs/CLINICAL.md"), encoding: .utf8)
        let rows = text.split(separator: "\n").filter { $0.hasPrefix("| `") }.map(String.init)
        let expected = MetricCatalog.builtin.allMetrics.map(Self.row)
        #expect(rows == expected, "expected rows:\n\(expected.joined(separator: "\n"))")
    }
}
