
import Foundation
import IngestAuth
import IngestGateway
import Observability
import TestSupport
import Testing
@testable import WorkerCore

/// The metric families are declared once, per process (`Sources/WorkerCore/Metrics+Families.swift`,
/// `Sources/IngestGateway/Service/IngestMetrics.swift`); every other copy is derived from or checked against them:
/// `charts/tests/worker-metric-families.json` and `charts/tests/ingest-metric-families.json` are their rendered
/// tables, which `scripts/check-monitoring.py` holds the Grafana dashboard, the PrometheusRule and their promtool tests
/// to, and every metric the chart and the docs name must be declared.
@Suite struct MetricFamilyTableTests {
    static let regenerate = "DVP_WRITE_METRIC_FAMILIES=1 swift test --filter MetricFamilyTableTests"

    /// One process's declarations and their committed table.
    struct Declarations: Sendable, CustomTestStringConvertible {
        var process: String
        /// The Swift file declaring every family of the process.
        var source: String
        var families: [MetricFamily]
        var declaredNames: Set<String> { Set(families.map(\.name)) }
        var tableFile: String { "charts/tests/\(process)-metric-families.json" }
        var testDescription: String { process }
    }

    static let processes = [
        Declarations(process: "worker", source: "Sources/WorkerCore/Metrics+Families.swift", families: Metrics.families),
        Declarations(
            process: "ingest", source: "Sources/IngestGateway/Service/IngestMetrics.swift",
            families: Metrics.ingestFamilies),
    ]

    @Test("The committed family table is the declarations' table", arguments: processes)
    func committedTableIsTheDeclarations(_ process: Declarations) throws {
        let url = TestEnvironment.root.appendingPathComponent(process.tableFile)
        let rendered = Self.table(process)
        if ProcessInfo.processInfo.environment["DVP_WRITE_METRIC_FAMILIES"] == "1" {
            try rendered.write(to: url, atomically: true, encoding: .utf8)
        }
        let committed = try? String(contentsOf: url, encoding: .utf8)
        let stale = "\(process.tableFile) is out of date with \(process.source)"
        #expect(committed == rendered, "\(stale): run `\(Self.regenerate)` and commit it")
    }

    @Test("Every family declared in the process's declarations file is in its family list (so it renders)",
          arguments: processes)
    func everyDeclarationIsListed(_ process: Declarations) throws {
        let source = try String(
            contentsOf: TestEnvironment.root.appendingPathComponent(process.source), encoding: .utf8)
        let declared = source.matches(of: #/static let \w+ = Self\(\s*"([a-z_:][a-z0-9_:]*)"/#).map { String($0.1) }
        #expect(declared.count == process.families.count)
        #expect(Set(declared) == process.declaredNames)
    }

    @Test("Names, labels, help texts and buckets are well-formed and unique", arguments: processes)
    func familiesAreWellFormed(_ process: Declarations) {
        let names = process.families.map(\.name)
        #expect(Set(names).count == names.count, "duplicate family names")
        for family in process.families {
            #expect(family.name.wholeMatch(of: #/dvp_[a-z0-9_]+/#) != nil, "\(family.name)")
            #expect(family.name.hasSuffix("_total") == (family.kind == .counter), "\(family.name): counters end _total")
            #expect(!family.help.isEmpty, "\(family.name)")
            #expect(!family.help.contains("\n") && !family.help.contains("\\"), "\(family.name): HELP is not escaped")
            #expect(Set(family.labelNames).count == family.labelNames.count, "\(family.name)")
            for label in family.labelNames {
                #expect(label.wholeMatch(of: #/[a-z][a-z0-9_]*/#) != nil && label != "le", "\(family.name): \(label)")
            }
            if family.kind == .histogram {
                #expect(!family.buckets.isEmpty && family.buckets.allSatisfy(\.isFinite))
                #expect(zip(family.buckets, family.buckets.dropFirst()).allSatisfy { $0 < $1 }, "ascending buckets")
            } else {
                #expect(family.buckets.isEmpty, "\(family.name)")
            }
        }
        // Series names of one family must not collide with another family (a histogram's `_count`, …).
        let series = process.families.flatMap(\.seriesNames)
        #expect(Set(series).count == series.count)
    }

    /// Every `dvp_` name in the dashboard, the alert rules, their promtool tests and the docs (other than
    /// `dvp_dlq_…`, which `dlq stats` exports and scripts/check-monitoring.py checks against its output) is a
    /// series of a declared family: the worker's, or for `dvp_ingest_…` the ingest gateway's. The JWT claims the
    /// gateway reads (`JWTPolicy`'s tenant and patient-prefix claims, docs/INGEST-AUTH.md) share the prefix and are
    /// not metrics.
    @Test("Every worker metric the chart and the docs name is declared")
    func chartAndDocsNameOnlyDeclaredMetrics() throws {
        // A histogram's family name (named in descriptions) and its series (used in queries).
        let families = Metrics.families + Metrics.ingestFamilies
        let declared = Set(families.flatMap(\.seriesNames) + families.map(\.name))
        #expect(Metrics.ingestFamilies.allSatisfy { $0.name.hasPrefix("dvp_ingest_") })
        #expect(Metrics.families.allSatisfy { !$0.name.hasPrefix("dvp_ingest_") })
        var used: [String: Set<String>] = [:]
        let policy = JWTPolicy(issuer: "", audience: "")
        let claims: Set = [policy.tenantClaim, policy.patientPrefixClaim]
        for file in try Self.monitoringAndDocFiles() {
            let text = try String(contentsOf: TestEnvironment.root.appendingPathComponent(file), encoding: .utf8)
            for match in text.matches(of: #/\bdvp_[a-z0-9_]+/#)
            where !match.output.hasPrefix("dvp_dlq_") && !claims.contains(String(match.output)) {
                used[file, default: []].insert(String(match.output))
            }
        }
        for (file, names) in used.sorted(by: { $0.key < $1.key }) {
            let undeclared = names.subtracting(declared).sorted()
            #expect(undeclared.isEmpty, "\(file) names metrics the worker does not declare: \(undeclared)")
        }
        let dashboard = "charts/daily-values-worker/files/grafana-dashboard.json"
        let rules = "charts/daily-values-worker/templates/prometheusrule.yaml"
        #expect(!(used[dashboard] ?? []).isEmpty && !(used[rules] ?? []).isEmpty, "the scan found the chart's queries")
    }

    // MARK: - Helpers

    /// The chart's monitoring files (dashboard, rule templates, promtool tests) and the Markdown docs.
    static func monitoringAndDocFiles() throws -> [String] {
        let manager = FileManager.default
        var files = [
            "README.md", "charts/daily-values-worker/README.md",
            "charts/daily-values-worker/files/grafana-dashboard.json",
        ]
        for directory in ["charts/daily-values-worker/templates", "charts/tests", "docs", "docs/reliability"] {
            let url = TestEnvironment.root.appendingPathComponent(directory)
            for name in try manager.contentsOfDirectory(atPath: url.path).sorted()
            where name.hasSuffix(".yaml") || name.hasSuffix(".md") {
                files.append(directory + "/" + name)
            }
        }
        return files
    }

    /// The table as committed: one family per line (name, type, labels, the series names a query may use, a
    /// histogram's buckets, help), in exposition order.
    static func table(_ process: Declarations) -> String {
        func string(_ text: String) -> String {
            var out = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
                default: out.unicodeScalars.append(scalar)
                }
            }
            return out + "\""
        }
        func list(_ items: [String]) -> String { "[" + items.joined(separator: ", ") + "]" }
        let lines = process.families.map { family in
            var fields = [
                "\"name\": \(string(family.name))", "\"type\": \(string(family.kind.rawValue))",
                "\"labels\": \(list(family.labelNames.map(string)))",
                "\"series\": \(list(family.seriesNames.map(string)))",
            ]
            if family.kind == .histogram { fields.append("\"buckets\": \(list(family.buckets.map { "\($0)" }))") }
            fields.append("\"help\": \(string(family.help))")
            return "    {" + fields.joined(separator: ", ") + "}"
        }
        return """
            {
              "about": "The \(process.process) metric families, rendered from \(process.source) by \
            Tests/WorkerTests/MetricFamilyTableTests.swift (\(regenerate)). scripts/check-monitoring.py checks the \
            dashboard, the alert rules and their tests against it. Do not edit by hand.",
              "families": [
            \(lines.joined(separator: ",\n"))
              ]
            }

            """
    }
}
