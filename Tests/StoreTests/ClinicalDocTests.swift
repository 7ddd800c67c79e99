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
        return
            "| `\(m.key)` | \(codings) | \(unit) | \(aggregation) | \(m.category?.rawValue ?? "none") | \(profile(m)) |"
    }

    static func clinicalText() throws -> String {
        try String(contentsOf: Fixtures.packageRoot().appendingPathComponent("docs/CLINICAL.md"), encoding: .utf8)
    }

    /// The cells of the table rows under `heading` (up to the next `## ` heading), the header left out (the rule
    /// line, `|---|`, does not start with `| `).
    static func table(under heading: String, in text: String) throws -> [[String]] {
        let section = try #require(text.components(separatedBy: "\n\(heading)\n").dropFirst().first, "\(heading)")
        let lines = section.components(separatedBy: "\n## ").first!.split(separator: "\n").filter { $0.hasPrefix("| ") }
        return lines.dropFirst().map { line in
            line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { String($0).trimmingCharacters(in: CharacterSet.whitespaces) }
        }
    }

    @Test func theMetricTableMatchesTheCatalog() throws {
        let rows = try Self.clinicalText().split(separator: "\n").filter { $0.hasPrefix("| `") }.map(String.init)
        let expected = MetricCatalog.builtin.allMetrics.map(Self.row)
        #expect(rows == expected, "expected rows:\n\(expected.joined(separator: "\n"))")
    }

    /// Issue 40's comparison table has one row per catalog metric, in key order, whose "our codes" cell is the
    /// metric's `code.coding` (LOINC codes, `HK` for the HealthKit coding).
    @Test func theCodeReviewTableCoversEveryMetricWithItsCodes() throws {
        let rows = try Self.table(under: "## Code review (issue 40)", in: Self.clinicalText())
        let metrics = MetricCatalog.builtin.allMetrics
        #expect(rows.map { $0.first ?? "" } == metrics.map(\.key))
        for (row, metric) in zip(rows, metrics) {
            let codes = metric.codings.map { $0.system == FHIRCoding.loincSystem ? $0.code : "HK" }
            #expect(row.count == 5 && row[1] == codes.joined(separator: " + "), "\(metric.key): \(row)")
            #expect(row.dropFirst(2).allSatisfy { !$0.isEmpty }, "\(metric.key): every column filled")
        }
    }

    /// The producers' table names, per key, the catalog's UCUM code to send and exactly its accepted aliases.
    @Test func theProducersTableIsTheCatalogsUnitRule() throws {
        let rows = try Self.table(under: "## Producers: what to send", in: Self.clinicalText())
        let metrics = MetricCatalog.builtin.allMetrics
        #expect(rows.map { $0.first ?? "" } == metrics.map(\.key))
        for (row, metric) in zip(rows, metrics) {
            let send = "`\(metric.ucum)`" + (metric.unitOptional ? " (may be omitted)" : "")
            let also =
                metric.unitAliases.isEmpty ? "—" : metric.unitAliases.map { "`\($0.unit)`" }.joined(separator: ", ")
            #expect(row.count == 4 && row[2] == send && row[3] == also, "\(metric.key): \(row)")
            #expect(row[1].hasPrefix("…") || row[1].hasPrefix("HK"), "\(metric.key): a HealthKit type")
        }
    }
}
