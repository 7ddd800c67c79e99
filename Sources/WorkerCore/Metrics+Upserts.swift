import Observability
import StoreCore

extension Metrics {
    /// Counts events answered by the version cache (never sent to the store) as their outcome.
    func countSkipped(_ skipped: [UpsertOutcome: Int]) {
        for (outcome, n) in skipped {
            increment(.upserts, label: outcome.rawValue, by: Double(n))
            increment(.skippedNotNewer, by: Double(n))
        }
    }
}
