import DailyValueContract
import Essentials
import ObservationMapping
import SQLiteClient
import StoreCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The embedded store: one SQLite database file in WAL mode, one connection on a serial queue.
///
/// Several processes may share the file: every batch takes the write lock with `BEGIN IMMEDIATE` and waits up to the
/// busy timeout; beyond that the upsert throws a retriable ``StoreError`` (`busy`).
public final class SQLiteObservationStore: ObservationStore, ObservationFinalizing, VersionAuditing, SchemaVersioning {
    private let state: QueueConfined<SQLiteConnection?>
    /// The database file path.
    public let path: String
    /// How long a statement waits for another connection's lock.
    let busyTimeoutMilliseconds: Int32
    /// What a winning retraction does to a stored day.
    public let retractionMode: RetractionMode
    /// The erasure ledger as batches check it.
    let erasure: ErasureGuard

    /// Opens (creating if missing) the database at `path` and creates or migrates its schema.
    /// - Parameters:
    ///   - busyTimeout: how long a batch waits for another writer's lock before throwing `busy`.
    ///   - retractionMode: mark a retracted day `entered-in-error` (default) or delete its row.
    ///   - erasureKey: the key persons are hashed with in the erasure ledger (the worker's id key); without one the
    ///     store refuses to write while its ledger has entries.
    /// - Throws: ``StoreError`` (`connection` when the file cannot be opened, `schema` when migration fails).
    public init(
        path: String, busyTimeout: Duration = .seconds(5), retractionMode: RetractionMode = .enteredInError,
        erasureKey: ErasureKey? = nil
    ) async throws {
        self.path = path
        self.retractionMode = retractionMode
        erasure = ErasureGuard(key: erasureKey)
        let milliseconds = Int32(clamping: busyTimeout.milliseconds)
        busyTimeoutMilliseconds = milliseconds
        state = QueueConfined(label: "dvp.sqlite-store", nil)
        try await state.run { connection in
            try StoreError.mapping {
                let opened = try SQLiteConnection(path: path, busyTimeoutMilliseconds: milliseconds)
                try SchemaMigrator.migrate(SQLiteSchema.migrations, on: opened)
                try opened.execute(Self.stagingTable)
                connection = opened
            }
        }
    }

    /// Runs `body` on the store's queue with the open connection.
    func withConnection<Result: Sendable>(
        _ body: @escaping @Sendable (SQLiteConnection) throws -> Result
    ) async throws -> Result {
        try await state.run { connection in
            guard let connection else { throw StoreError(.usage, "the SQLite store \(self.path) is closed") }
            return try StoreError.mapping { try body(connection) }
        }
    }

    // MARK: - ObservationStore

    public var capabilities: StoreCapabilities {
        StoreCapabilities(finalize: self, export: self, schema: self, audit: self, erasure: self)
    }

    public func upsert(_ batch: [ObservationRecord]) async throws -> [UpsertResult] {
        guard !batch.isEmpty else { return [] }
        let mode = retractionMode, erasure = erasure
        return try await withConnection { connection in
            try connection.transaction {
                let refused = try erasure.refusedMask(
                    batch, generation: try SQLiteErasure.generation(on: connection),
                    load: { try SQLiteErasure.refused(on: connection) })
                let outcomes = try PresetOutcomes.merge(batch, preset: PresetOutcomes.erased(refused)) {
                    try Self.upsert($0, retractionMode: mode, on: connection)
                }
                try Self.count(batch, outcomes, on: connection)
                return outcomes
            }
        }.map(UpsertResult.init)
    }

    public func observation(for identity: ObservationIdentity) async throws -> StoredObservation? {
        try await withConnection { connection in
            try connection.statement(Self.selectColumns + " WHERE patient = ? AND metric = ? AND day = ?")
                .query([.text(identity.patient), .text(identity.metric), .text(identity.day)], row: Self.stored)
                .first
        }
    }

    public func observations(patient: String) async throws -> [StoredObservation] {
        try await withConnection { connection in
            try connection.statement(Self.selectColumns + " WHERE patient = ? ORDER BY metric, day")
                .query([.text(patient)], row: Self.stored)
        }
    }

    public func outcomeCounts() async throws -> [MetricOutcomeCount] {
        try await withConnection { connection in
            try connection.statement("SELECT metric, outcome, count FROM outcome_count ORDER BY metric, outcome")
                .query { row in
                    MetricOutcomeCount(
                        metric: row.text(0), outcome: UpsertOutcome(rawValue: row.text(1)) ?? .stale,
                        count: row.integer(2))
                }
        }
    }

    public func allVersions() async throws -> [ObservationIdentity: Int64] {
        let rows = try await withConnection { connection in
            try connection.statement("SELECT patient, metric, day, version FROM observation").query { row in
                (ObservationIdentity(patient: row.text(0), metric: row.text(1), day: row.text(2)), row.integer(3))
            }
        }
        return Dictionary(rows, uniquingKeysWith: { first, _ in first })
    }

    public func close() async {
        _ = try? await state.run { connection in connection = nil }
    }

    public func schemaVersion() async throws -> Int {
        try await withConnection { try $0.schemaVersion() }
    }

    // MARK: - Upsert

    /// The version-guarded upsert of one batch (values and retractions, docs/LIFECYCLE.md); runs inside the
    /// caller's `BEGIN IMMEDIATE` transaction, which holds the database write lock, so reading the stored version and
    /// then writing cannot race another writer. Batches without a winning retraction are written set-based
    /// (``upsertStaged(_:winners:held:on:)``), the others row by row.
    private static func upsert(
        _ batch: [ObservationRecord], retractionMode: RetractionMode, on connection: SQLiteConnection
    ) throws -> [UpsertOutcome] {
        let plan = UpsertPlan(batch)
        let held = try HeldVersions(connection)
        var heldValues: [Int: [UInt8]] = [:]
        let winnerOutcomes =
            try plan.winners.allSatisfy({ batch[$0].retractionReason == nil })
            ? upsertStaged(batch, winners: plan.winners, held: held, heldValues: &heldValues, on: connection)
            : upsertRowByRow(
                batch, plan: plan, held: held, heldValues: &heldValues, retractionMode: retractionMode, on: connection)
        return plan.outcomes(for: batch, winnerOutcomes: winnerOutcomes, heldValues: heldValues)
    }

    /// Adds the batch's outcomes to the counters.
    private static func count(
        _ batch: [ObservationRecord], _ outcomes: [UpsertOutcome], on connection: SQLiteConnection
    ) throws {
        let count = try connection.statement(
            """
            INSERT INTO outcome_count (metric, outcome, count) VALUES (?, ?, ?)
            ON CONFLICT (metric, outcome) DO UPDATE SET count = count + excluded.count
            """)
        for total in UpsertPlan.counts(of: batch, outcomes: outcomes) {
            try count.run([.text(total.metric), .text(total.outcome.rawValue), .integer(total.count)])
        }
    }

    /// Batches with a retraction among the winners: row by row in plan order (a retraction's identity may have its
    /// highest value of the batch written just before it, which its own read must see).
    private static func upsertRowByRow(
        _ batch: [ObservationRecord], plan: UpsertPlan, held: HeldVersions, heldValues: inout [Int: [UInt8]],
        retractionMode: RetractionMode, on connection: SQLiteConnection
    ) throws -> [Int: UpsertOutcome] {
        // The statement that decides `meta.versionId` / `meta.lastUpdated` writes them into the stored resource too,
        // by concatenation (StoredResourceSQL), so the row holds the whole FHIR resource.
        let insert = try connection.statement(
            """
            INSERT INTO observation (patient, metric, day, version, resource_id, resource, version_id, last_updated,
                status, clinical_value)
            SELECT ?1, ?2, ?3, ?4, ?5, \(StoredResourceSQL.compose(
                head: "?6", tail: "?7", versionId: "CAST(?11 AS TEXT)", lastUpdated: "stamp.instant", status: "?8",
                afterStatus: "?9")), ?11, stamp.instant, ?8, ?10
            FROM \(Self.lastUpdatedNow)
            """)
        let decided = StoredResourceSQL.decidedStatus(
            storedStatus: "status", storedValue: "clinical_value", incomingStatus: "?8", incomingValue: "?10")
        // Every SET expression reads the row as it was before this UPDATE.
        let update = try connection.statement(
            """
            UPDATE observation SET version = ?4, resource_id = ?5, status = \(decided), clinical_value = ?10,
                resource = \(StoredResourceSQL.compose(
                    head: "?6", tail: "?7", versionId: "CAST(version_id + 1 AS TEXT)", lastUpdated: "stamp.instant",
                    status: decided, afterStatus: "?9")),
                version_id = version_id + 1, last_updated = stamp.instant
            FROM \(Self.lastUpdatedNow)
            WHERE patient = ?1 AND metric = ?2 AND day = ?3 AND version < ?4
            """)
        // A retraction keeps the resource and changes its status (and meta) with JSON functions (rare, not hot), or
        // deletes the row; the ledger keeps the version either way, and a deleted row's last versionId, from which
        // a re-stored day continues.
        let retract = try connection.statement(
            retractionMode == .delete
                ? """
                DELETE FROM observation WHERE patient = ?1 AND metric = ?2 AND day = ?3 AND version < ?4
                RETURNING version_id
                """
                : """
                UPDATE observation SET version = ?4, \(Self.statusChange("entered-in-error"))
                FROM \(Self.lastUpdatedNow)
                WHERE patient = ?1 AND metric = ?2 AND day = ?3 AND version < ?4
                """)
        let recordRetraction = try connection.statement(
            """
            INSERT INTO retraction (patient, metric, day, version, reason, recorded_at, version_id)
            SELECT ?1, ?2, ?3, ?4, ?5, stamp.instant, ?6 FROM \(Self.lastUpdatedNow) WHERE true
            ON CONFLICT (patient, metric, day) DO UPDATE SET version = excluded.version, reason = excluded.reason,
                recorded_at = excluded.recorded_at, version_id = coalesce(excluded.version_id, retraction.version_id)
            WHERE retraction.version < excluded.version
            """)
        var winnerOutcomes: [Int: UpsertOutcome] = [:]
        for index in plan.winners.flatMap({ [plan.valuesBeneath[$0], $0].compactMap { $0 } }) {
            let record = batch[index]
            let key = Self.key(record), row = Self.row(record)
            let (stored, retracted) = try held.read(key, version: record.version)
            if let decided = held.decide(record, index, stored: stored, retracted: retracted, into: &heldValues) {
                winnerOutcomes[index] = decided
            } else if let reason = record.retractionReason {
                let version: [SQLiteValue] = [.integer(record.version)]
                let deleted = try stored.flatMap { _ in try retract.query(key + version) { $0.integer(0) }.first }
                try recordRetraction.run(key + version + [.text(reason), deleted.map { .integer($0) } ?? .null])
                winnerOutcomes[index] = .retracted
            } else if stored == nil {
                try insert.run(key + row + [.integer((retracted?.versionId ?? 0) + 1)])
                winnerOutcomes[index] = .inserted
            } else {
                try update.run(key + row)
                winnerOutcomes[index] = .updated
            }
        }
        return winnerOutcomes
    }

    /// The `SET` items of a status change (retraction, finalisation): the status column and the resource's
    /// `status`, `meta.versionId` + 1 and `meta.lastUpdated` (JSON functions, on these rare paths only); needs
    /// ``lastUpdatedNow`` in `FROM`.
    static func statusChange(_ status: String) -> String {
        """
        status = '\(status)', version_id = version_id + 1, last_updated = stamp.instant,
            resource = json_set(resource, '$.status', '\(status)', '$.meta.versionId', CAST(version_id + 1 AS TEXT),
                '$.meta.lastUpdated', stamp.instant)
        """
    }

    /// One row `stamp (instant)`: FHIR `meta.lastUpdated` for now, RFC 3339 UTC with milliseconds (SQLite's `'now'` is
    /// the same instant for every use within one statement step).
    static let lastUpdatedNow = "(SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now') AS instant) AS stamp"

    // MARK: - Rows

    /// The resource is read with `meta.versionId`/`meta.lastUpdated` set from the columns, which are authoritative
    /// (rows written by an older build carry them only there); no row is rewritten.
    static let selectColumns =
        "SELECT patient, metric, day, version, resource_id, "
        + "json_set(resource, '$.meta.versionId', CAST(version_id AS TEXT), '$.meta.lastUpdated', last_updated), "
        + "version_id, last_updated FROM observation"

    static func stored(_ row: SQLiteStatement) -> StoredObservation {
        StoredObservation(
            identity: ObservationIdentity(patient: row.text(0), metric: row.text(1), day: row.text(2)),
            version: row.integer(3), resourceID: row.text(4), resource: row.text(5), versionId: row.integer(6),
            lastUpdated: row.text(7))
    }
}
