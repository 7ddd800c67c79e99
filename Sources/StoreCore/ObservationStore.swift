import DailyValueContract
import ObservationMapping

/// A durable home for daily Observations with a version-guarded upsert.
///
/// Implementations: ``SQLiteObservationStore`` (embedded default) and ``PostgresObservationStore``.
/// All blocking database work runs on the store's own serial queue, never on Swift's cooperative pool.
public protocol ObservationStore: Sendable {
    /// Upserts a batch in one transaction and returns one outcome per record, in input order.
    ///
    /// Within the batch the highest version per identity wins; the others are `unchanged` (same version as the
    /// winner) or `stale` (lower). Against the stored row: greater → `updated`, equal → `unchanged`, lower → `stale`.
    /// A store behind a validating server may refuse a record for its content (``UpsertResult/refused(reason:)``).
    /// When this returns, the batch is durable.
    /// - Throws: ``StoreError``; `isRetriable` tells infrastructure failures (retry with backoff) from bugs.
    func upsert(_ batch: [ObservationRecord]) async throws -> [UpsertResult]

    /// The stored Observation for one identity, if any.
    func observation(for identity: ObservationIdentity) async throws -> StoredObservation?

    /// Every stored Observation of one patient, ordered by metric and day.
    func observations(patient: String) async throws -> [StoredObservation]

    /// Totals of upsert outcomes per metric since the store was created.
    func outcomeCounts() async throws -> [MetricOutcomeCount]

    /// The identity and stored version of every Observation (for oracles, audits and tools).
    func allVersions() async throws -> [ObservationIdentity: Int64]

    /// The operations this store offers beyond these (finalize, retention, export, migrate, audit, …).
    var capabilities: StoreCapabilities { get }

    /// Closes the connection(s). Further calls throw.
    func close() async
}

/// How many upserts of one metric ended in one outcome.
public struct MetricOutcomeCount: Sendable, Hashable {
    public var metric: String
    public var outcome: UpsertOutcome
    public var count: Int64

    public init(metric: String, outcome: UpsertOutcome, count: Int64) {
        self.metric = metric
        self.outcome = outcome
        self.count = count
    }
}
