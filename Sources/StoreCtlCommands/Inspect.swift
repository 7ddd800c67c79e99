import CommandLineOptions
import DailyValueContract
import Essentials
import StoreCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// The read-only commands: `counts`, `show`, `dump`, `sizes`.
enum Inspect {
    @Sendable static func counts(_ arguments: ParsedCommandLine) async throws -> Int32 {
        try arguments.expectPositionals(0, "")
        let counts = try await StoreCtl.withStore(arguments) { try await $0.outcomeCounts() }
        var byMetric: [String: [UpsertOutcome: Int64]] = [:]
        for count in counts { byMetric[count.metric, default: [:]][count.outcome, default: 0] += count.count }
        let outcomes = UpsertOutcome.allCases
        let header = ["metric"] + outcomes.map(\.rawValue) + ["total"]
        var rows: [[String]] = []
        var overall: [UpsertOutcome: Int64] = [:]
        for metric in byMetric.keys.sorted() {
            let totals = byMetric[metric]!
            rows.append([metric] + outcomes.map { String(totals[$0] ?? 0) } + [String(totals.values.reduce(0, +))])
            for (outcome, count) in totals { overall[outcome, default: 0] += count }
        }
        rows.append(["(all)"] + outcomes.map { String(overall[$0] ?? 0) } + [String(overall.values.reduce(0, +))])
        print(table([header] + rows))
        return 0
    }

    @Sendable static func show(_ arguments: ParsedCommandLine) async throws -> Int32 {
        try arguments.expectPositionals(1, "PATIENT/METRIC/DAY")
        let parts = arguments.positionals[0].split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty }) else {
            throw UsageError("expected PATIENT/METRIC/DAY, got '\(arguments.positionals[0])'")
        }
        let identity = ObservationIdentity(patient: parts[0], metric: parts[1], day: parts[2])
        guard let stored = try await StoreCtl.withStore(arguments, { try await $0.observation(for: identity) }) else {
            return StoreCtl.fail(1, "storectl show: no Observation stored for \(identity)")
        }
        print(stored.resource)
        return 0
    }

    @Sendable static func dump(_ arguments: ParsedCommandLine) async throws -> Int32 {
        try arguments.expectPositionals(0, "")
        let versions = try await StoreCtl.withStore(arguments) { try await $0.allVersions() }
        var out = ""
        for (identity, version) in versions.sorted(by: { $0.key.key < $1.key.key }) {
            out += "\(identity.key)\t\(version)\n"
        }
        FileDescriptorOutput.write(out, to: STDOUT_FILENO)
        return 0
    }

    @Sendable static func sizes(_ arguments: ParsedCommandLine) async throws -> Int32 {
        try arguments.expectPositionals(0, "")
        let sizes: [(metric: String, bytes: Int)] = try await StoreCtl.withStore(arguments) { store in
            let patients = Set(try await store.allVersions().keys.map(\.patient))
            var sizes: [(String, Int)] = []
            for patient in patients.sorted() {
                sizes += try await store.observations(patient: patient).map {
                    ($0.identity.metric, $0.resource.utf8.count)
                }
            }
            return sizes
        }
        var byMetric: [String: [Int]] = [:]
        for size in sizes { byMetric[size.metric, default: []].append(size.bytes) }
        func row(_ name: String, _ bytes: [Int]) -> [String] {
            [
                name, String(bytes.count), String(bytes.isEmpty ? 0 : bytes.reduce(0, +) / bytes.count),
                String(bytes.max() ?? 0),
            ]
        }
        let rows = byMetric.keys.sorted().map { row($0, byMetric[$0]!) } + [row("(all)", sizes.map(\.bytes))]
        print(table([["metric", "resources", "average bytes", "max bytes"]] + rows))
        return 0
    }

    /// Left-aligned first column, right-aligned numbers.
    private static func table(_ rows: [[String]]) -> String {
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, cell in
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                return column == 0 ? cell + pad : pad + cell
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
