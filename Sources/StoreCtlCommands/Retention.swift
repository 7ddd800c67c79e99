import CommandLineOptions
import Essentials
import StoreCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `retention`: drops the months of a PostgreSQL store whose days are all older than N days (docs/PARTITIONING.md).
enum Retention {
    static let options = [
        ParsedCommandLine.storeOption,
        .value("--keep-days", "N", help: "keep the last N days (1-36500; required): earlier days expire"),
        .flag("--dry-run", help: "say what would be dropped; change nothing"),
    ]

    @Sendable static func run(_ arguments: ParsedCommandLine) async throws -> Int32 {
        try arguments.expectPositionals(0, "")
        let keepDays = try arguments.requiredInteger("--keep-days", in: 1...36_500)
        guard case .postgres = try arguments.storeLocation() else {
            throw UsageError.invalid(
                "--store", "retention drops PostgreSQL partitions; a SQLite or FHIR store keeps every day")
        }
        let dryRun = arguments.isSet("--dry-run")
        let keepFrom = horizon(keepDays: keepDays, now: Date())
        let report = try await StoreCtl.withStore(arguments) { store -> RetentionReport in
            guard let retention = store.capabilities.retention else {
                throw StoreError(.usage, "this store has no retention")
            }
            return try await retention.applyRetention(keepFrom: keepFrom, dryRun: dryRun)
        }
        let verb = dryRun ? "would drop" : "dropped"
        print(
            "horizon: days before \(report.horizon) are expired (whole months: at least \(keepDays) days kept)"
                + (report.horizon > keepFrom ? "; an earlier run set this later horizon, which stays" : ""))
        for partition in report.dropped {
            print("\(verb) \(partition.name) (\(describe(partition)))")
        }
        for partition in report.straddling {
            print(
                "kept \(partition.name) (\(describe(partition))): its days before \(report.horizon) go when all of "
                    + "it is before the horizon (the table of an older schema)")
        }
        for partition in report.busy {
            StandardError.print(
                "storectl: error: \(partition.name) (\(describe(partition))) is expired but was not dropped: another "
                    + "session (an export?) held observation too long; the horizon is in force, run again later")
        }
        if report.dropped.isEmpty && report.busy.isEmpty { print("nothing to drop") }
        return report.busy.isEmpty ? 0 : 1
    }

    /// The first day kept: `keepDays` days before today (UTC).
    static func horizon(keepDays: Int, now: Date) -> String {
        let calendar = Calendar.utcGregorian
        let day = calendar.date(byAdding: .day, value: -keepDays, to: now)!
        let parts = calendar.dateComponents([.year, .month, .day], from: day)
        return FixedFormat.digits(parts.year!, width: 4) + "-" + FixedFormat.digits(parts.month!, width: 2) + "-"
            + FixedFormat.digits(parts.day!, width: 2)
    }

    private static func describe(_ partition: RetentionReport.Partition) -> String {
        let rows = partition.estimatedRows >= 0 ? "~\(partition.estimatedRows) rows" : "rows not counted yet"
        return "\(partition.from ?? "earliest") to \(partition.to), \(rows), "
            + FixedFormat.decimals(Double(partition.bytes) / 1e6, 1) + " MB"
    }
}
