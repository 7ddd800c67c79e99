import ObservationMapping
import SQLiteClient

/// Reads what a day holds (``SQLiteRowWriter/Held``) through two prepared statements: the row by its key, else the
/// retraction ledger's entry.
struct SQLiteHeldReader {
    private let row: SQLiteStatement
    private let ledger: SQLiteStatement

    init(_ connection: SQLiteConnection) throws {
        row = try connection.statement(
            """
            SELECT version, version_id, status, clinical_value, clinical_digest FROM observation
            WHERE patient = ?1 AND metric = ?2 AND day = ?3
            """)
        ledger = try connection.statement(
            "SELECT version, coalesce(version_id, 0) FROM retraction WHERE patient = ?1 AND metric = ?2 AND day = ?3")
    }

    /// The version the day of `key` (`patient, metric, day`) holds, if any: its row's, else the ledger's. The digest
    /// is the column's, or that of an older row's clinical value text.
    func held(_ key: [SQLiteValue]) throws -> SQLiteRowWriter.Held? {
        let stored = try row.query(key) { row in
            SQLiteRowWriter.Held(
                version: row.integer(0), versionId: row.integer(1),
                status: row.bytes(2).map { String(decoding: $0, as: UTF8.self) },
                digest: row.bytes(3).map { ClinicalDigest.of($0) } ?? row.blob(4), stored: true)
        }.first
        if let stored { return stored }
        return try ledger.query(key) {
            SQLiteRowWriter.Held(
                version: $0.integer(0), versionId: $0.integer(1), status: nil, digest: nil, stored: false)
        }.first
    }
}
