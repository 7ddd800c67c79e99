import Essentials
import Foundation

/// What a worker run did, printed at the end of `--until-caught-up` runs and logged on every stop.
public struct RunSummary: Sendable, CustomStringConvertible {
    public var consumed: Int64
    public var inserted: Int64
    public var updated: Int64
    public var unchanged: Int64
    public var stale: Int64
    /// Retractions that withdrew a day (docs/LIFECYCLE.md).
    public var retracted: Int64
    /// Events of the stored version with a different clinical value; the first stored value was kept.
    public var conflict: Int64
    public var skippedByVersionCache: Int64
    public var deadLettered: Int64
    public var storeErrors: Int64
    public var elapsedSeconds: Double
    /// True when the run ended because every assigned partition was caught up.
    public var caughtUp: Bool

    init(metrics: Metrics, elapsed: Duration, caughtUp: Bool) {
        func count(_ name: String, _ labels: String = "") -> Int64 { Int64(metrics.counter(name, labels: labels)) }
        consumed = count("dvp_records_consumed_total")
        inserted = count("dvp_upserts_total", "outcome=\"inserted\"")
        updated = count("dvp_upserts_total", "outcome=\"updated\"")
        unchanged = count("dvp_upserts_total", "outcome=\"unchanged\"")
        stale = count("dvp_upserts_total", "outcome=\"stale\"")
        retracted = count("dvp_upserts_total", "outcome=\"retracted\"")
        conflict = count("dvp_upserts_total", "outcome=\"conflict\"")
        skippedByVersionCache = count("dvp_skipped_not_newer_total")
        deadLettered = metrics.counterFamilyTotal("dvp_dead_lettered_total")
        storeErrors = count("dvp_store_errors_total")
        elapsedSeconds = elapsed.seconds
        self.caughtUp = caughtUp
    }

    var logFields: [(String, Logger.Value)] {
        [("consumed", .int(consumed)), ("inserted", .int(inserted)), ("updated", .int(updated)),
         ("unchanged", .int(unchanged)), ("stale", .int(stale)), ("retracted", .int(retracted)),
         ("conflict", .int(conflict)),
         ("dead_lettered", .int(deadLettered)),
         ("elapsed_s", .double(elapsedSeconds))]
    }

    public var description: String {
        let rate = elapsedSeconds > 0 ? Double(consumed) / elapsedSeconds : 0
        return """
            worker summary\(caughtUp ? " (caught up)" : "")
              consumed       \(consumed)
              inserted       \(inserted)
              updated        \(updated)
              unchanged      \(unchanged)\(skippedByVersionCache > 0 ? "  (\(skippedByVersionCache) answered by the version cache)" : "")
              stale          \(stale)
              retracted      \(retracted)
              conflict       \(conflict)\(conflict > 0 ? "  (same version, other value: stored value kept)" : "")
              dead-lettered  \(deadLettered)
              store errors   \(storeErrors) (retried)
              elapsed        \(String(format: "%.1f", elapsedSeconds)) s (\(Int(rate)) records/s)
            """
    }
}

extension Metrics {
    /// The sum of every series of a counter family.
    func counterFamilyTotal(_ name: String) -> Int64 {
        Int64(render().split(separator: "\n").filter { $0.hasPrefix(name + "{") || $0.hasPrefix(name + " ") }
            .compactMap { Double($0.split(separator: " ").last ?? "") }.reduce(0, +))
    }
}
