import DailyValueContract
import DocumentCompression
import ObservationMapping
import SQLiteClient
import StoreCore

/// The version-guarded writes of one batch on SQLite, in the lean row (schema 8, docs/STORAGE.md): the typed facts,
/// the document the worker compressed, the 16-byte clinical digest; `resource` stays empty.
///
/// It runs inside the batch's `BEGIN IMMEDIATE` transaction, which holds the database's write lock: what it reads of
/// a day cannot change before it writes, so it decides `meta.versionId` and the status here (the same rules as
/// ``StoredResourceSQL/decidedStatus(storedStatus:storedValue:incomingStatus:incomingValue:)``) and binds them. Its
/// statements are the connection's cached prepared ones — prepared once, reused by every batch — looked up once per
/// batch, not per row (the cache is keyed by the SQL text).
struct SQLiteRowWriter {
    /// What a day holds: its row's version and what the next write decides against, or the retraction ledger's
    /// entry of a day not stored.
    struct Held {
        var version: Int64
        var versionId: Int64
        var status: String?
        /// The stored clinical value's digest: the column, or the digest of an older row's clinical value text.
        var digest: [UInt8]?
        /// False for a day the ledger alone holds (a retraction of a day never stored, or deleted).
        var stored: Bool
    }

    private let connection: SQLiteConnection
    private let compressor: DocumentCompressor
    private let reader: SQLiteHeldReader
    private let insert: SQLiteStatement
    private let update: SQLiteStatement
    /// `meta.lastUpdated` of every row this batch writes: SQLite's clock, read under the write lock (the export's
    /// mark relies on that: SQLiteObservationStore+Export).
    let stamp: String

    init(_ connection: SQLiteConnection, compressor: DocumentCompressor) throws {
        self.connection = connection
        self.compressor = compressor
        reader = try SQLiteHeldReader(connection)
        insert = try connection.statement(Self.insertSQL)
        update = try connection.statement(Self.updateSQL)
        stamp = try connection.statement("SELECT \(SQLiteObservationStore.clock)").query { $0.text(0) }[0]
    }

    /// The version `record`'s day holds, if any: its row's, else the ledger's.
    func held(_ record: ObservationRecord) throws -> Held? { try reader.held(Self.key(record)) }

    /// Writes value `record` over `held` (a newer version than it holds): a new row, or the stored one replaced.
    /// - Returns: `inserted` or `updated`.
    func write(_ record: ObservationRecord, over held: Held?) throws -> UpsertOutcome {
        let facts = record.facts ?? StoredDocument.facts(ofResource: record)
        let replacing = held?.stored == true
        let status = Self.decidedStatus(
            stored: replacing ? held?.status : nil, storedDigest: held?.digest, incoming: record)
        let parameters: [SQLiteValue] =
            Self.key(record) + [
                .integer(record.version), .text(record.resourceID), .integer((held?.versionId ?? 0) + 1),
                .text(stamp), status.map { .text($0) } ?? .null,
                .blob(StoredDocument.compressed(record, compressor)), .blob(record.clinicalDigest),
                Self.real(facts?.value), facts.map { .text($0.unit) } ?? .null, Self.real(facts?.min),
                Self.real(facts?.max), Self.real(facts?.systolic), Self.real(facts?.diastolic),
                facts.map { .integer($0.periodStart) } ?? .null, facts.map { .integer($0.periodEnd) } ?? .null,
            ]
        try (replacing ? update : insert).run(parameters)
        return replacing ? .updated : .inserted
    }

    /// A new row: `?6` is the versionId (1, or the one after a deleted day's, from the ledger).
    static let insertSQL = """
        INSERT INTO observation (patient, metric, day, version, resource_id, resource, version_id, last_updated,
            status, document, clinical_digest, value, unit, min, max, systolic, diastolic, period_start, period_end)
        VALUES (?1, ?2, ?3, ?4, ?5, '', ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)
        """

    /// A replace (a row of the older shape is rewritten in the lean one); the guard stays, though the write lock
    /// already rules out a newer row.
    static let updateSQL = """
        UPDATE observation SET version = ?4, resource_id = ?5, resource = '', version_id = ?6, last_updated = ?7,
            status = ?8, document = ?9, clinical_digest = ?10, clinical_value = NULL, value = ?11, unit = ?12,
            min = ?13, max = ?14, systolic = ?15, diastolic = ?16, period_start = ?17, period_end = ?18
        WHERE patient = ?1 AND metric = ?2 AND day = ?3 AND version < ?4
        """

    /// Retracts `record`'s day over `held` (a lower version than the retraction's): marks its row
    /// `entered-in-error` (the document stays; status and meta change) or deletes it, and records the retraction in
    /// the ledger (the highest per day), with a deleted row's last `version_id`, from which a re-stored day continues.
    func retract(_ record: ObservationRecord, reason: String, held: Held?, mode: RetractionMode) throws {
        let key = Self.key(record), version: [SQLiteValue] = [.integer(record.version)]
        let deleted =
            try held?.stored == true
            ? connection.statement(mode == .delete ? Self.deleteSQL : Self.markSQL).query(key + version) {
                $0.integer(0)
            }.first : nil
        try connection.statement(Self.ledgerSQL).run(
            key + version + [.text(reason), deleted.map { .integer($0) } ?? .null])
    }

    static let markSQL = """
        UPDATE observation SET version = ?4, \(SQLiteObservationStore.statusChange("entered-in-error"))
        FROM \(SQLiteObservationStore.lastUpdatedNow)
        WHERE patient = ?1 AND metric = ?2 AND day = ?3 AND version < ?4
        """

    static let deleteSQL = """
        DELETE FROM observation WHERE patient = ?1 AND metric = ?2 AND day = ?3 AND version < ?4
        RETURNING version_id
        """

    static let ledgerSQL = """
        INSERT INTO retraction (patient, metric, day, version, reason, recorded_at, version_id)
        SELECT ?1, ?2, ?3, ?4, ?5, stamp.instant, ?6 FROM \(SQLiteObservationStore.lastUpdatedNow) WHERE true
        ON CONFLICT (patient, metric, day) DO UPDATE SET version = excluded.version, reason = excluded.reason,
            recorded_at = excluded.recorded_at, version_id = coalesce(excluded.version_id, retraction.version_id)
        WHERE retraction.version < excluded.version
        """

    /// The status a version-guarded write stores (docs/LIFECYCLE.md): a stored final or amended day stays so — a
    /// different value makes it `amended` — any other stored state takes the incoming status; nil without a slot.
    static func decidedStatus(stored: String?, storedDigest: [UInt8]?, incoming record: ObservationRecord) -> String? {
        guard let incoming = record.status else { return nil }
        guard let stored, stored == "final" || stored == "amended" else { return incoming.rawValue }
        return storedDigest.map { $0.elementsEqual(record.clinicalDigest) } == true ? stored : "amended"
    }

    /// `patient, metric, day` of `record` (parameters 1–3 of the row statements).
    static func key(_ record: ObservationRecord) -> [SQLiteValue] { key(record.identity) }

    static func key(_ identity: ObservationIdentity) -> [SQLiteValue] {
        [.text(identity.patient), .text(identity.metric), .text(identity.day)]
    }

    private static func real(_ value: Double?) -> SQLiteValue { value.map { .real($0) } ?? .null }
}
