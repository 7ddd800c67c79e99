import Essentials
import Hashing
import PostgresClient
import StoreCore

/// The erasure ledger and the erasure itself on PostgreSQL (docs/PRIVACY.md).
///
/// The lock protocol is retention's (``PostgresRetention``): every batch takes the advisory lock shared and reads
/// the ledger's generation with the horizon, in one round trip; writing a ledger entry takes it exclusively, so it
/// waits for the batches in flight, and every later batch sees the entry. The deletes come after the entry is
/// committed: nothing written afterwards is the person's. Pseudonyms travel as hex text (`decode($1, 'hex')`).
enum PostgresErasure {
    /// The persons refused now, and the key fingerprint the ledger was written under.
    static func refused(on connection: PostgresConnection) throws -> RefusedPersons {
        let result = try connection.execute("SELECT encode(pseudonym, 'hex'), mode FROM erasure ORDER BY sequence")
        let refused = ErasureStatus.refused(
            (0..<result.rowCount).compactMap { row in
                PatientPseudonym(hex: result.text(row, 0)).map {
                    ($0, ErasureMode(rawValue: result.text(row, 1)) ?? .erase)
                }
            })
        return RefusedPersons(pseudonyms: refused, keyFingerprint: try fingerprint(on: connection))
    }

    static func fingerprint(on connection: PostgresConnection) throws -> String? {
        let result = try connection.execute("SELECT key_fingerprint FROM erasure_state")
        return result.rowCount == 0 ? nil : result.bytes(0, 0).map { String(decoding: $0, as: UTF8.self) }
    }

    static func generation(on connection: PostgresConnection) throws -> Int64 {
        try connection.execute("SELECT generation FROM erasure_state").integer(0, 0)
    }

    static func ledger(on connection: PostgresConnection) throws -> [ErasureLedgerEntry] {
        let result = try connection.execute(
            """
            SELECT sequence, encode(pseudonym, 'hex'), mode, reference, \(PostgresUpsert.lastUpdatedText("requested_at")),
                \(PostgresUpsert.lastUpdatedText("completed_at")), observations_deleted, retractions_deleted,
                audit_rows_deleted
            FROM erasure ORDER BY sequence
            """)
        return try result.rows { row in
            guard let pseudonym = PatientPseudonym(hex: result.text(row, 1)) else {
                throw StoreError(.schema, "erasure entry \(result.text(row, 0)) has a malformed pseudonym")
            }
            return ErasureLedgerEntry(
                sequence: try result.integer(row, 0), pseudonym: pseudonym,
                mode: ErasureMode(rawValue: result.text(row, 2)) ?? .erase, reference: result.text(row, 3),
                requestedAt: result.text(row, 4),
                completedAt: result.bytes(row, 5).map { String(decoding: $0, as: UTF8.self) },
                deleted: ErasureCounts(
                    observations: try result.integer(row, 6), retractions: try result.integer(row, 7),
                    auditRows: try result.integer(row, 8)))
        }
    }

    /// One subject with its pseudonym and, where the store holds rows of theirs, their patient id.
    struct Resolved {
        var pseudonym: PatientPseudonym
        var patient: String? = nil
    }

    /// The subjects with their pseudonyms; a pseudonym-only subject gets the id of the stored rows it matches (every
    /// stored patient id is hashed once), or none when the store holds nothing of them.
    static func resolve(_ request: ErasureRequest, on connection: PostgresConnection) throws -> [Resolved] {
        var byPseudonym: [PatientPseudonym: String] = [:]
        if request.subjects.contains(where: { if case .pseudonym = $0 { true } else { false } }) {
            let result = try connection.execute(
                "SELECT DISTINCT patient FROM observation UNION SELECT DISTINCT patient FROM retraction")
            for row in 0..<result.rowCount {
                let patient = result.text(row, 0)
                byPseudonym[request.key.pseudonym(of: patient)] = patient
            }
        }
        return request.subjects.map { subject in
            let pseudonym = subject.pseudonym(with: request.key)
            if case .patient(let patient) = subject { return Resolved(pseudonym: pseudonym, patient: patient) }
            return Resolved(pseudonym: pseudonym, patient: byPseudonym[pseudonym])
        }
    }

    /// Writes the entries the request needs under the batches' lock, taken exclusively, and bumps the generation;
    /// returns which subjects got one.
    static func record(
        _ subjects: [Resolved], _ request: ErasureRequest, on connection: PostgresConnection
    ) throws -> [Bool] {
        try connection.transaction {
            _ = try connection.execute("SELECT pg_advisory_xact_lock(\(PostgresRetention.lockKey))")
            _ = try ErasureGuard.checked(request.key, against: try fingerprint(on: connection))
            var recorded: [Bool] = []
            for subject in subjects {
                let held = try connection.execute(
                    "SELECT mode FROM erasure WHERE pseudonym = decode($1, 'hex') ORDER BY sequence",
                    [subject.pseudonym.hex])
                let modes = held.rows { ErasureMode(rawValue: held.text($0, 0)) }.compactMap { $0 }
                let needed = try ErasureStatus(modes).needsEntry(request.mode)
                if needed {
                    _ = try connection.execute(
                        """
                        INSERT INTO erasure (pseudonym, mode, reference, completed_at)
                        VALUES (decode($1, 'hex'), $2, $3, CASE WHEN $2 = 'erase' THEN NULL ELSE now() END)
                        """, [subject.pseudonym.hex, request.mode.rawValue, request.reference])
                }
                recorded.append(needed)
            }
            if recorded.contains(true) {
                _ = try connection.execute(
                    """
                    UPDATE erasure_state SET generation = generation + 1,
                        key_fingerprint = coalesce(key_fingerprint, $1)
                    """, [request.key.fingerprint])
            }
            return recorded
        }
    }

    /// What is stored of `patient`: Observations (every partition), retraction days, audit rows.
    static func counts(of patient: String, on connection: PostgresConnection) throws -> ErasureCounts {
        let result = try connection.execute(
            """
            SELECT (SELECT count(*) FROM observation WHERE patient = $1),
                (SELECT count(*) FROM retraction WHERE patient = $1)
            """, [patient])
        let auditRows =
            try hasAuditTable(connection)
            ? try connection.execute("SELECT count(*) FROM version_audit WHERE patient = $1", [patient]).integer(0, 0)
            : 0
        return ErasureCounts(
            observations: try result.integer(0, 0), retractions: try result.integer(0, 1), auditRows: auditRows)
    }

    /// Whether `storectl audit-install` created the audit log (the statement naming it is planned only then).
    private static func hasAuditTable(_ connection: PostgresConnection) throws -> Bool {
        try connection.execute("SELECT to_regclass('version_audit') IS NOT NULL").text(0, 0) == "t"
    }

    /// Refreshes the planner's statistics of the tables an erasure deleted from, so that no erased id lingers in
    /// `pg_statistic` (most common values, histogram bounds) until the next autovacuum's analyze.
    static func refreshStatistics(on connection: PostgresConnection) throws {
        try connection.executeScript(
            "ANALYZE observation; ANALYZE retraction"
                + (try hasAuditTable(connection) ? "; ANALYZE version_audit" : ""))
    }

    /// Deletes everything stored of `subject` (every partition, the retraction ledger, the audit log), keeps the
    /// erased resource ids for incremental exports, and completes the open erase entries, in one transaction.
    static func delete(_ subject: Resolved, on connection: PostgresConnection) throws -> ErasureCounts {
        try connection.transaction {
            var deleted = ErasureCounts()
            if let patient = subject.patient {
                _ = try connection.execute(
                    """
                    INSERT INTO erased_resource (resource_id)
                    SELECT resource_id FROM observation WHERE patient = $1 ON CONFLICT DO NOTHING
                    """, [patient])
                func delete(_ sql: String) throws -> Int64 {
                    try connection.execute("WITH d AS (\(sql) RETURNING 1) SELECT count(*) FROM d", [patient])
                        .integer(0, 0)
                }
                deleted.observations = try delete("DELETE FROM observation WHERE patient = $1")
                deleted.retractions = try delete("DELETE FROM retraction WHERE patient = $1")
                if try hasAuditTable(connection) {
                    deleted.auditRows = try delete("DELETE FROM version_audit WHERE patient = $1")
                }
            }
            _ = try connection.execute(
                """
                UPDATE erasure SET completed_at = now(), observations_deleted = observations_deleted + $2,
                    retractions_deleted = retractions_deleted + $3, audit_rows_deleted = audit_rows_deleted + $4
                WHERE sequence = (SELECT min(sequence) FROM erasure
                    WHERE pseudonym = decode($1, 'hex') AND mode = 'erase' AND completed_at IS NULL)
                """,
                [
                    subject.pseudonym.hex, String(deleted.observations), String(deleted.retractions),
                    String(deleted.auditRows),
                ])
            _ = try connection.execute(
                """
                UPDATE erasure SET completed_at = now()
                WHERE pseudonym = decode($1, 'hex') AND mode = 'erase' AND completed_at IS NULL
                """, [subject.pseudonym.hex])
            return deleted
        }
    }
}
