/// A store that flips settled preliminary days to final (docs/LIFECYCLE.md, `storectl finalize`).
public protocol ObservationFinalizing: Sendable {
    /// Flips every preliminary day whose local day ended (`effectivePeriod.end`) at or before `settledBefore`
    /// (seconds since the epoch) to final: in chunks, each one short guarded transaction, each row with
    /// `meta.versionId` + 1; a row a worker replaced meanwhile is judged as it is then, never overwritten
    /// (PostgreSQL: a row a worker holds at that moment is left to the next run).
    /// - Returns: how many days were finalized.
    func finalize(settledBefore: Int64) async throws -> Int
}

/// How many rows `finalize` flips per statement and transaction (tests pass smaller chunks).
package enum FinalizeChunk {
    package static let rows = 5_000
}
