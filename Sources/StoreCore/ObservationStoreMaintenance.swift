import DailyValueContract

/// Store operations for tools and tests (`storectl`), outside the pipeline's hot path.
///
/// Both ``SQLiteObservationStore`` and ``PostgresObservationStore`` conform; ``makeObservationStore(_:postgres:)``
/// returns `any ObservationStore`, so cast with `as? any ObservationStoreMaintenance`.
public protocol ObservationStoreMaintenance: ObservationStore {
    /// The number of schema migrations applied (the highest row of `schema_version`).
    func schemaVersion() async throws -> Int

    /// Installs (idempotently) a trigger that logs every update of a stored version into `version_audit`.
    func installVersionAudit() async throws

    /// What the `version_audit` trigger has logged so far.
    /// - Throws: ``StoreError`` with code `usage` when the audit was never installed.
    func versionAudit() async throws -> VersionAuditSummary

    /// Flips every preliminary day whose local day ended (`effectivePeriod.end`) at or before `settledBefore`
    /// (seconds since the epoch) to final (docs/LIFECYCLE.md): in chunks, each one short guarded transaction, each
    /// row with `meta.versionId` + 1; a row a worker replaced meanwhile is judged as it is then, never overwritten
    /// (PostgreSQL: a row a worker holds at that moment is left to the next run).
    /// - Returns: how many days were finalized.
    func finalize(settledBefore: Int64) async throws -> Int
}

/// Totals of the `version_audit` log.
public struct VersionAuditSummary: Sendable, Hashable {
    /// Version updates logged.
    public var updates: Int64
    /// Updates whose new version was lower than the old one (must always be 0).
    public var decreases: Int64

    public init(updates: Int64, decreases: Int64) {
        self.updates = updates
        self.decreases = decreases
    }
}

/// How many rows `finalize` flips per statement and transaction (tests pass smaller chunks).
package enum FinalizeChunk {
    package static let rows = 5_000
}
