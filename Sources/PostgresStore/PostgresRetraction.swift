import DailyValueContract
import ObservationMapping
import PostgresClient
import StoreCore

/// Retractions on PostgreSQL (docs/LIFECYCLE.md): the batch takes the lock first, writes its values, then these.
///
/// A retraction of a day never stored has no row to lock, so it would race a concurrent first insert of that day.
/// Retractions are rare: the batch takes `SHARE ROW EXCLUSIVE` on `observation`, which waits for the writers in
/// flight and holds every other writer (and retraction) off until COMMIT; each retraction then reads the version
/// the day holds (its row's, else the ledger's) and acts on it without a race. A value arriving later sees the
/// ledger in the upsert's `NOT EXISTS` guard.
enum PostgresRetraction {
    /// Taken before the batch writes anything, so that it never waits for a lock while holding a weaker one.
    static func lock(on connection: PostgresConnection) throws {
        _ = try connection.execute("LOCK TABLE observation IN SHARE ROW EXCLUSIVE MODE")
    }

    static func run(
        _ indices: [Int], of batch: [ObservationRecord], mode: RetractionMode,
        into outcomes: inout [Int: UpsertOutcome], on connection: PostgresConnection
    ) throws {
        let held = try PostgresUpsert.storedVersions(indices.map { batch[$0].identity }, on: connection)
        for index in indices {
            let record = batch[index]
            let key = [record.identity.patient, record.identity.metric, record.identity.day]
            if let version = held[record.identity]?.version, version >= record.version {
                outcomes[index] = version == record.version ? .unchanged : .stale
                continue
            }
            let changed = try connection.execute(mode == .delete ? deleteSQL : markSQL, key + [String(record.version)])
            let deletedVersionId = mode == .delete && changed.rowCount == 1 ? changed.text(0, 0) : ""
            _ = try connection.execute(
                ledgerSQL, key + [String(record.version), record.retractionReason ?? "", deletedVersionId])
            outcomes[index] = .retracted
        }
    }

    /// Marks a stored day `entered-in-error`: the document stays, its status and meta change.
    static let markSQL = """
        UPDATE observation AS o SET version = $4::bigint, \(statusChange("entered-in-error"))
        WHERE o.patient = $1 AND o.metric = $2 AND o.day = $3 AND o.version < $4::bigint
        """

    /// Deletes a stored day (``RetractionMode/delete``), returning its last `version_id`; the ledger keeps its
    /// retraction and that versionId, so that a re-stored day continues from it.
    static let deleteSQL = """
        DELETE FROM observation WHERE patient = $1 AND metric = $2 AND day = $3 AND version < $4::bigint
        RETURNING version_id
        """

    /// The `SET` items of a status change of row `o` (retraction, finalisation): the columns only — `status`,
    /// `version_id` + 1 and `last_updated` — which the resource is read with (a schema-3 row's too).
    static func statusChange(_ status: String) -> String {
        "status = '\(status)', version_id = o.version_id + 1, last_updated = now()"
    }

    /// Records the retraction in the ledger (the highest per day), with the deleted row's `version_id` (`$6`;
    /// empty: no row deleted, the ledger keeps the one it holds).
    static let ledgerSQL = """
        INSERT INTO retraction AS r (patient, metric, day, version, reason, version_id)
        VALUES ($1, $2, $3, $4::bigint, $5, nullif($6, '')::bigint)
        ON CONFLICT (patient, metric, day) DO UPDATE
            SET version = EXCLUDED.version, reason = EXCLUDED.reason, recorded_at = now(),
                version_id = coalesce(EXCLUDED.version_id, r.version_id)
            WHERE r.version < EXCLUDED.version
        """
}
