import DailyValueContract
import DocumentCompression
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
/// Rows have the lean shape since migration 8 (docs/STORAGE.md): the facts in typed columns, the resource as a
/// document the worker compressed, one key (`patient, metric, day`); rows of the older shape (the resource as text)
/// read back whole until `storectl migrate` rewrites them.
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
    /// The document compressor and decompressor, used only on the state's queue (inside ``withConnection(_:)``).
    let codecs = DocumentCodecs()
    /// The documents of a batch made ahead, by the worker (``StoreCapabilities/documentEncoder``).
    let documentEncoder = StoredDocumentEncoder()

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
        StoreCapabilities(
            versionReader: self, finalize: self, export: self, schema: self, migrate: self, audit: self,
            erasure: self, documentEncoder: documentEncoder)
    }

    public func upsert(_ batch: [ObservationRecord]) async throws -> [UpsertResult] {
        guard !batch.isEmpty else { return [] }
        let mode = retractionMode, erasure = erasure, codecs = codecs
        return try await withConnection { connection in
            try connection.transaction {
                let refused = try erasure.refusedMask(
                    batch, generation: try SQLiteErasure.generation(on: connection),
                    load: { try SQLiteErasure.refused(on: connection) })
                let outcomes = try PresetOutcomes.merge(batch, preset: PresetOutcomes.erased(refused)) {
                    try Self.upsert($0, retractionMode: mode, compressor: codecs.compressor, on: connection)
                }
                try Self.count(batch, outcomes, on: connection)
                return outcomes
            }
        }.map(UpsertResult.init)
    }

    public func observation(for identity: ObservationIdentity) async throws -> StoredObservation? {
        let codecs = codecs
        return try await withConnection { connection in
            try connection.statement(Self.selectColumns + " WHERE patient = ? AND metric = ? AND day = ?")
                .query([.text(identity.patient), .text(identity.metric), .text(identity.day)]) {
                    try Self.stored($0, codecs.decompressor)
                }
                .first
        }
    }

    public func observations(patient: String) async throws -> [StoredObservation] {
        let codecs = codecs
        return try await withConnection { connection in
            try connection.statement(Self.selectColumns + " WHERE patient = ? ORDER BY metric, day")
                .query([.text(patient)]) { try Self.stored($0, codecs.decompressor) }
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
    /// caller's `BEGIN IMMEDIATE` transaction, which holds the database write lock, so reading what a day holds and
    /// then writing cannot race another writer. Winners go in plan order, each through the connection's prepared
    /// statements (``SQLiteRowWriter``): a retraction's identity may have its highest value of the batch written
    /// just before it, which its own read must see.
    private static func upsert(
        _ batch: [ObservationRecord], retractionMode: RetractionMode, compressor: DocumentCompressor,
        on connection: SQLiteConnection
    ) throws -> [UpsertOutcome] {
        let plan = UpsertPlan(batch)
        let writer = try SQLiteRowWriter(connection, compressor: compressor)
        var winnerOutcomes: [Int: UpsertOutcome] = [:]
        var heldValues: [Int: [UInt8]] = [:]
        for index in plan.winners.flatMap({ [plan.valuesBeneath[$0], $0].compactMap { $0 } }) {
            let record = batch[index]
            let held = try writer.held(record)
            if let held, held.version >= record.version {
                guard held.version == record.version else {
                    winnerOutcomes[index] = .stale
                    continue
                }
                // The value that holds this version, for the conflict check (a retraction's holds none).
                let value = held.stored && held.status != "entered-in-error" ? held.digest : nil
                heldValues[index] = value
                winnerOutcomes[index] = UpsertPlan.equalVersion(record, held: value?[...])
            } else if let reason = record.retractionReason {
                try writer.retract(record, reason: reason, held: held, mode: retractionMode)
                winnerOutcomes[index] = .retracted
            } else {
                winnerOutcomes[index] = try writer.write(record, over: held)
            }
        }
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

    /// The `SET` items of a status change (retraction, finalisation): the columns `status`, `version_id` + 1 and
    /// `last_updated`, which a lean row is read with; a row of the older shape also gets them in its resource text
    /// (JSON functions, on these rare paths only). Needs ``lastUpdatedNow`` in `FROM`.
    static func statusChange(_ status: String) -> String {
        """
        status = '\(status)', version_id = version_id + 1, last_updated = stamp.instant,
            resource = CASE WHEN resource = '' THEN '' ELSE json_set(resource, '$.status', '\(status)',
                '$.meta.versionId', CAST(version_id + 1 AS TEXT), '$.meta.lastUpdated', stamp.instant) END
        """
    }

    /// One row `stamp (instant)`: FHIR `meta.lastUpdated` for now, RFC 3339 UTC with milliseconds (SQLite's `'now'` is
    /// the same instant for every use within one statement step).
    static let lastUpdatedNow = "(SELECT \(clock) AS instant) AS stamp"

    /// SQLite's clock as FHIR `meta.lastUpdated`.
    static let clock = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"

    // MARK: - Rows

    /// A lean row is its document with `meta.versionId`, `meta.lastUpdated` and the status from the columns
    /// (``StoredDocument``); a row of the older shape (`resource` text set) is its text with the meta set from the
    /// columns, which are authoritative (rows written by an older build carry them only there). No row is rewritten.
    static let selectColumns =
        "SELECT patient, metric, day, version, resource_id, CASE WHEN resource <> '' THEN \(oldShapeResource) END, "
        + "document, version_id, last_updated, status FROM observation"

    /// A row of the older shape's resource as reads return it.
    static let oldShapeResource =
        "json_set(resource, '$.meta.versionId', CAST(version_id AS TEXT), '$.meta.lastUpdated', last_updated)"

    static func stored(_ row: SQLiteStatement, _ decompressor: DocumentDecompressor) throws -> StoredObservation {
        let (versionId, lastUpdated) = (row.integer(7), row.text(8))
        let resource: String
        if let text = row.bytes(5) {
            resource = String(decoding: text, as: UTF8.self)
        } else {
            guard let document = row.blob(6) else {
                throw StoreError(.query, "a stored row holds neither a resource nor a document")
            }
            let (content, parts) = try StoreError.mapping { try decompressor.parts(of: document) }
            resource = StoredDocument.resource(
                content, parts: parts, versionId: versionId, lastUpdated: lastUpdated,
                status: row.bytes(9).map { String(decoding: $0, as: UTF8.self) })
        }
        return StoredObservation(
            identity: ObservationIdentity(patient: row.text(0), metric: row.text(1), day: row.text(2)),
            version: row.integer(3), resourceID: row.text(4), resource: resource, versionId: versionId,
            lastUpdated: lastUpdated)
    }
}
