import ObservationUpsert

extension Metrics {
    /// Counts events answered by the version cache (never sent to the store) as their outcome.
    func countSkipped(_ skipped: [UpsertOutcome: Int]) {
        for (outcome, n) in skipped {
            increment("dvp_upserts_total", labels: "outcome=\"\(outcome.rawValue)\"", by: Double(n))
            increment("dvp_skipped_not_newer_total", by: Double(n))
        }
    }
}
