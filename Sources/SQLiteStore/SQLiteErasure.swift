import Essentials
import SQLiteClient
import StoreCore

/// The erasure ledger and the erasure itself on SQLite (docs/PRIVACY.md).
///
/// Every batch reads `erasure_state.generation` inside its `BEGIN IMMEDIATE` transaction, which holds the database's
/// write lock; an erasure writes its ledger entry and bumps the generation in a write transaction of its own, so a
/// batch either committed before the entry or sees it. Every connection runs with `secure_delete` (deleted and
/// replaced content is overwritten with zeros, in pages and on the freelist) and an erasure truncates the WAL, so
/// that neither the file nor its WAL keeps the person's bytes.
enum SQLiteErasure {
    static let generationSQL = "SELECT generation FROM erasure_state"

    /// The persons refused now, and the key fingerprint the ledger was written under.
    static func refused(on connection: SQLiteConnection) throws -> RefusedPersons {
        let rows = try connection.statement("SELECT pseudonym, mode FROM erasure ORDER BY sequence").query { row in
            (PatientPseudonym(digest: row.blob(0) ?? []), ErasureMode(rawValue: row.text(1)) ?? .erase)
        }
        let refused = ErasureStatus.refused(rows.compactMap { pseudonym, mode in pseudonym.map { ($0, mode) } })
        return RefusedPersons(pseudonyms: refused, keyFingerprint: try fingerprint(on: connection))
    }

    static func fingerprint(on connection: SQLiteConnection) throws -> String? {
        try connection.statement("SELECT key_fingerprint FROM erasure_state").query { row in
            row.isNull(0) ? nil : row.text(0)
        }.first ?? nil
    }

    static func generation(on connection: SQLiteConnection) throws -> Int64 {
        try connection.statement(generationSQL).query { $0.integer(0) }.first ?? 0
    }

    static func ledger(on connection: SQLiteConnection) throws -> [ErasureLedgerEntry] {
        try connection.statement(
            """
            SELECT sequence, pseudonym, mode, reference, requested_at, completed_at, observations_deleted,
                retractions_deleted, audit_rows_deleted
            FROM erasure ORDER BY sequence
            """
        ).query { row in
            ErasureLedgerEntry(
                sequence: row.integer(0), pseudonym: PatientPseudonym(digest: row.blob(1) ?? [])!,
                mode: ErasureMode(rawValue: row.text(2)) ?? .erase, reference: row.text(3), requestedAt: row.text(4),
                completedAt: row.isNull(5) ? nil : row.text(5),
                deleted: ErasureCounts(observations: row.integer(6), retractions: row.integer(7), auditRows: row.integer(8)))
        }
    }

    /// One subject resolved to its pseudonym and, where the store holds rows of theirs, their patient id.
    struct Resolved {
        var pseudonym: PatientPseudonym
        var patient: String? = nil
    }

    /// The subjects with their pseudonyms; a pseudonym-only subject gets the id of the stored rows it matches (every
    /// stored patient id is hashed once), or none when the store holds nothing of them.
    static func resolve(_ request: ErasureRequest, on connection: SQLiteConnection) throws -> [Resolved] {
        var byPseudonym: [PatientPseudonym: String] = [:]
        if request.subjects.contains(where: { if case .pseudonym = $0 { true } else { false } }) {
            let patients = try connection.statement(
                "SELECT DISTINCT patient FROM observation UNION SELECT DISTINCT patient FROM retraction"
            ).query { $0.text(0) }
            for patient in patients { byPseudonym[request.key.pseudonym(of: patient)] = patient }
        }
        return request.subjects.map { subject in
            let pseudonym = subject.pseudonym(with: request.key)
            if case .patient(let patient) = subject { return Resolved(pseudonym: pseudonym, patient: patient) }
            return Resolved(pseudonym: pseudonym, patient: byPseudonym[pseudonym])
        }
    }

    /// Writes the entries the request needs (one write transaction, which also bumps the generation); returns which
    /// subjects got one.
    static func record(
        _ subjects: [Resolved], _ request: ErasureRequest, on connection: SQLiteConnection
    ) throws -> [Bool] {
        try connection.transaction {
            _ = try ErasureGuard.checked(request.key, against: try fingerprint(on: connection))
            let modes = try connection.statement("SELECT mode FROM erasure WHERE pseudonym = ? ORDER BY sequence")
            let insert = try connection.statement(
                """
                INSERT INTO erasure (pseudonym, mode, reference, requested_at, completed_at)
                VALUES (?1, ?2, ?3, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'),
                    CASE WHEN ?2 = 'erase' THEN NULL ELSE strftime('%Y-%m-%dT%H:%M:%fZ', 'now') END)
                """)
            var recorded: [Bool] = []
            for subject in subjects {
                let held = try modes.query([.blob(subject.pseudonym.bytes)]) { ErasureMode(rawValue: $0.text(0)) }
                let needed = try ErasureStatus(held.compactMap { $0 }).needsEntry(request.mode)
                if needed {
                    try insert.run([.blob(subject.pseudonym.bytes), .text(request.mode.rawValue), .text(request.reference)])
                }
                recorded.append(needed)
            }
            if recorded.contains(true) {
                try connection.statement(
                    "UPDATE erasure_state SET generation = generation + 1, key_fingerprint = coalesce(key_fingerprint, ?)"
                ).run([.text(request.key.fingerprint)])
            }
            return recorded
        }
    }

    /// What is stored of `patient`: Observations, retraction days, audit rows.
    static func counts(of patient: String, on connection: SQLiteConnection) throws -> ErasureCounts {
        func count(_ sql: String) throws -> Int64 {
            try connection.statement(sql).query([.text(patient)]) { $0.integer(0) }.first ?? 0
        }
        return ErasureCounts(
            observations: try count("SELECT count(*) FROM observation WHERE patient = ?"),
            retractions: try count("SELECT count(*) FROM retraction WHERE patient = ?"),
            auditRows: try hasAuditTable(connection) ? try count("SELECT count(*) FROM version_audit WHERE patient = ?") : 0)
    }

    /// Deletes everything stored of `subject` and completes their open erase entries, in one transaction.
    static func delete(_ subject: Resolved, on connection: SQLiteConnection) throws -> ErasureCounts {
        try connection.transaction {
            var deleted = ErasureCounts()
            if let patient = subject.patient {
                func delete(_ sql: String) throws -> Int64 {
                    Int64(try connection.statement(sql).query([.text(patient)]) { _ in 1 }.count)
                }
                try connection.statement(
                    """
                    INSERT OR IGNORE INTO erased_resource (resource_id, erased_at)
                    SELECT resource_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM observation WHERE patient = ?
                    """
                ).run([.text(patient)])
                deleted.observations = try delete("DELETE FROM observation WHERE patient = ? RETURNING 1")
                deleted.retractions = try delete("DELETE FROM retraction WHERE patient = ? RETURNING 1")
                if try hasAuditTable(connection) {
                    deleted.auditRows = try delete("DELETE FROM version_audit WHERE patient = ? RETURNING 1")
                }
            }
            try connection.statement(
                """
                UPDATE erasure SET completed_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'),
                    observations_deleted = observations_deleted + ?2, retractions_deleted = retractions_deleted + ?3,
                    audit_rows_deleted = audit_rows_deleted + ?4
                WHERE sequence = (SELECT min(sequence) FROM erasure
                    WHERE pseudonym = ?1 AND mode = 'erase' AND completed_at IS NULL)
                """
            ).run([
                .blob(subject.pseudonym.bytes), .integer(deleted.observations), .integer(deleted.retractions),
                .integer(deleted.auditRows),
            ])
            try connection.statement(
                """
                UPDATE erasure SET completed_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
                WHERE pseudonym = ? AND mode = 'erase' AND completed_at IS NULL
                """
            ).run([.blob(subject.pseudonym.bytes)])
            return deleted
        }
    }

    /// Truncates the WAL, so that no frame of a page as it was before the deletes survives there (the connection
    /// runs with `secure_delete`, so the file's pages hold no deleted bytes). Returns what could not be done: another
    /// connection kept the WAL in use past the busy timeout.
    static func truncateWAL(on connection: SQLiteConnection) -> [String] {
        do {
            let busy = try connection.statement("PRAGMA wal_checkpoint(TRUNCATE)").query { $0.integer(0) }.first ?? 1
            return busy == 0
                ? [] : ["another connection kept the WAL from being truncated: it may hold deleted rows; rerun"]
        } catch {
            return ["the WAL was not truncated (\(error)): it may hold deleted rows; rerun"]
        }
    }

    private static func hasAuditTable(_ connection: SQLiteConnection) throws -> Bool {
        try connection.statement("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'version_audit'")
            .query { $0.integer(0) }.first ?? 0 > 0
    }
}
