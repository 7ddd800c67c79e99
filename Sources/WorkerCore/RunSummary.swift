import Essentials
import Observability
import StoreCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

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
    /// Events of days before the store's retention horizon: refused, not stored.
    public var expired: Int64
    /// Events of erased persons, or of persons who withdrew consent (`storectl erase`): refused, not stored.
    public var erased: Int64
    public var skippedByVersionCache: Int64
    public var deadLettered: Int64
    public var storeErrors: Int64
    public var elapsedSeconds: Double
    /// True when the run ended because every assigned partition was caught up.
    public var caughtUp: Bool

    init(metrics: Metrics, elapsed: Duration, caughtUp: Bool) {
        func count(_ outcome: UpsertOutcome) -> Int64 {
            Int64(metrics.value(of: .upserts, label: outcome.rawValue))
        }
        consumed = Int64(metrics.value(of: .recordsConsumed))
        inserted = count(.inserted)
        updated = count(.updated)
        unchanged = count(.unchanged)
        stale = count(.stale)
        retracted = count(.retracted)
        conflict = count(.conflict)
        expired = count(.expired)
        erased = count(.erased) + Int64(metrics.value(of: .erasedDeadLetters))
        skippedByVersionCache = Int64(metrics.value(of: .skippedNotNewer))
        deadLettered = Int64(metrics.total(of: .deadLettered))
        storeErrors = Int64(metrics.value(of: .storeErrors))
        elapsedSeconds = elapsed.seconds
        self.caughtUp = caughtUp
    }

    var logFields: [(String, Logger.Value)] {
        [
            ("consumed", .int(consumed)), ("inserted", .int(inserted)), ("updated", .int(updated)),
            ("unchanged", .int(unchanged)), ("stale", .int(stale)), ("retracted", .int(retracted)),
            ("conflict", .int(conflict)), ("expired", .int(expired)),
            ("erased", .int(erased)),
            ("dead_lettered", .int(deadLettered)),
            ("elapsed_s", .double(elapsedSeconds)),
        ]
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
              expired        \(expired)\(expired > 0 ? "  (days before the retention horizon: not stored)" : "")
              erased         \(erased)\(erased > 0 ? "  (persons erased or withdrawn: not stored, not dead-lettered)" : "")
              dead-lettered  \(deadLettered)
              store errors   \(storeErrors) (retried)
              elapsed        \(FixedFormat.decimals(elapsedSeconds, 1)) s (\(Int(rate)) records/s)
            """
    }
}
