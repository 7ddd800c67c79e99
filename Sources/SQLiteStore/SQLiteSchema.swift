import DailyValueContract
import Essentials
import SQLiteClient
import StoreCore

/// The SQLite schema as ordered migrations, applied by ``SchemaMigrator``.
enum SQLiteSchema {
    /// Migration `n` (1-based) is `migrations[n - 1]`. Append only: never edit a released step.
    static let migrations: [String] = [
        // 1: observations keyed by identity, and outcome counters.
        """
        CREATE TABLE observation (
            patient TEXT NOT NULL,
            metric TEXT NOT NULL,
            day TEXT NOT NULL,
            version INTEGER NOT NULL,
            resource_id TEXT NOT NULL,
            resource TEXT NOT NULL,
            version_id INTEGER NOT NULL,
            last_updated TEXT NOT NULL,
            PRIMARY KEY (patient, metric, day)
        ) WITHOUT ROWID;
        CREATE TABLE outcome_count (
            metric TEXT NOT NULL,
            outcome TEXT NOT NULL,
            count INTEGER NOT NULL,
            PRIMARY KEY (metric, outcome)
        ) WITHOUT ROWID;
        """,
        // 2: FHIR reads by resource id (`Observation/{id}`).
        "CREATE INDEX observation_resource_id ON observation (resource_id);",
        // 3: a rowid table: WITHOUT ROWID suits small rows only, and a ~2 KB resource per row made every lookup
        // and insert walk overflow pages inside the primary-key b-tree.
        """
        CREATE TABLE observation_rowid (
            patient TEXT NOT NULL,
            metric TEXT NOT NULL,
            day TEXT NOT NULL,
            version INTEGER NOT NULL,
            resource_id TEXT NOT NULL,
            resource TEXT NOT NULL,
            version_id INTEGER NOT NULL,
            last_updated TEXT NOT NULL,
            UNIQUE (patient, metric, day)
        );
        INSERT INTO observation_rowid
            SELECT patient, metric, day, version, resource_id, resource, version_id, last_updated FROM observation;
        DROP TABLE observation;
        ALTER TABLE observation_rowid RENAME TO observation;
        CREATE INDEX observation_resource_id ON observation (resource_id);
        """,
        // 4: the lifecycle (docs/LIFECYCLE.md): the stored status and clinical value decide `amended`. Rows of older
        //    builds get their status from the resource; their value is unknown (NULL), so a final one replaced by
        //    any value becomes amended.
        """
        ALTER TABLE observation ADD COLUMN status TEXT;
        ALTER TABLE observation ADD COLUMN clinical_value TEXT;
        UPDATE observation SET status = json_extract(resource, '$.status');
        """,
        // 5: the retraction ledger: the highest retraction per day, kept also for days never stored, so that an equal
        //    or lower version arriving later never brings the day back.
        """
        CREATE TABLE retraction (
            patient TEXT NOT NULL,
            metric TEXT NOT NULL,
            day TEXT NOT NULL,
            version INTEGER NOT NULL,
            reason TEXT NOT NULL,
            recorded_at TEXT NOT NULL,
            PRIMARY KEY (patient, metric, day)
        );
        """,
        // 6: finalize finds settled preliminary days through a partial index (preliminary days only) in key order,
        //    chunk by chunk; the ledger keeps a deleted day's last meta.versionId, so that a day re-stored after a
        //    delete-mode retraction continues from it (docs/LIFECYCLE.md).
        """
        ALTER TABLE retraction ADD COLUMN version_id INTEGER;
        CREATE INDEX observation_preliminary ON observation (day, patient, metric) WHERE status = 'preliminary';
        """,
        // 7: the erasure ledger (docs/PRIVACY.md): one entry per request, append only, keyed by the person's
        //    pseudonym (a keyed hash, never the id); its generation, which every batch reads under the write lock;
        //    and the ids of erased resources, which an incremental export lists as deleted.
        """
        CREATE TABLE erasure (
            sequence INTEGER PRIMARY KEY,
            pseudonym BLOB NOT NULL CHECK (length(pseudonym) = 32),
            mode TEXT NOT NULL CHECK (mode IN ('erase', 'withdraw', 'lift')),
            reference TEXT NOT NULL,
            requested_at TEXT NOT NULL,
            completed_at TEXT,
            observations_deleted INTEGER NOT NULL DEFAULT 0,
            retractions_deleted INTEGER NOT NULL DEFAULT 0,
            audit_rows_deleted INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX erasure_pseudonym ON erasure (pseudonym);
        CREATE TABLE erasure_state (
            singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
            generation INTEGER NOT NULL,
            key_fingerprint TEXT
        );
        INSERT INTO erasure_state (singleton, generation) VALUES (1, 0);
        CREATE TABLE erased_resource (
            resource_id TEXT PRIMARY KEY,
            erased_at TEXT NOT NULL
        );
        """,
        // 8: the lean row (docs/STORAGE.md), as PostgreSQL's: the facts in typed columns, the resource as the document
        //    the worker compressed (`document`, read with the columns' meta and status), the clinical value as its
        //    16-byte digest, one key. Metadata only: rows of the older shape stay and read back whole until
        //    `storectl migrate` rewrites them. SQLite cannot drop `resource`'s NOT NULL without copying the table, so
        //    a lean row holds '' there (one header byte). Periods are seconds since the epoch. The `resource_id`
        //    index goes: no statement reads by resource id.
        """
        ALTER TABLE observation ADD COLUMN document BLOB;
        ALTER TABLE observation ADD COLUMN clinical_digest BLOB;
        ALTER TABLE observation ADD COLUMN value REAL;
        ALTER TABLE observation ADD COLUMN unit TEXT;
        ALTER TABLE observation ADD COLUMN min REAL;
        ALTER TABLE observation ADD COLUMN max REAL;
        ALTER TABLE observation ADD COLUMN systolic REAL;
        ALTER TABLE observation ADD COLUMN diastolic REAL;
        ALTER TABLE observation ADD COLUMN period_start INTEGER;
        ALTER TABLE observation ADD COLUMN period_end INTEGER;
        DROP INDEX observation_resource_id;
        """,
    ]
}

/// Schema work in one `BEGIN IMMEDIATE` transaction, so concurrent openers serialize on the write lock.
extension SQLiteConnection: SchemaMigrating {
    package func withSchemaLock(_ body: () throws -> Void) throws {
        try StoreError.mapping { try transaction(body) }
    }

    package func createSchemaVersionTable() throws {
        try execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)")
    }

    package func schemaVersion() throws -> Int {
        let rows = try statement("SELECT coalesce(max(version), 0) FROM schema_version").query { Int($0.integer(0)) }
        return rows.first ?? 0
    }

    package func apply(_ migration: String, recordingVersion version: Int) throws {
        try execute(migration)
        try statement(
            "INSERT INTO schema_version (version, applied_at) VALUES (?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))"
        ).run([.integer(Int64(version))])
    }
}
