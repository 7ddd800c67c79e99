import DailyValueContract
import Essentials
import SQLiteClient

/// The SQLite schema as ordered migrations; `schema_version` records each one applied.
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
        // and insert walk overflow pages inside the primary-key b-tree (about 3x slower).
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
    ]

    /// Creates or migrates the schema in one `BEGIN IMMEDIATE` transaction, so concurrent openers serialize.
    static func migrate(_ connection: SQLiteConnection) throws {
        do {
            try connection.immediateTransaction {
                try connection.execute(
                    "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)"
                )
                let current = try currentVersion(connection)
                guard current <= migrations.count else {
                    throw StoreError(
                        .schema, "database schema version \(current) is newer than this build (\(migrations.count))")
                }
                for (index, migration) in migrations.enumerated().dropFirst(current) {
                    try connection.execute(migration)
                    try connection.statement(
                        """
                        INSERT INTO schema_version (version, applied_at)
                        VALUES (?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
                        """
                    ).run([.integer(Int64(index + 1))])
                }
            }
        } catch let error as SQLiteError where error.kind == .statement {
            throw StoreError(.schema, nativeCode: String(error.resultCode), "migrating the schema: \(error.message)")
        }
    }

    static func currentVersion(_ connection: SQLiteConnection) throws -> Int {
        let rows = try connection.statement("SELECT coalesce(max(version), 0) FROM schema_version").query {
            Int($0.integer(0))
        }
        return rows.first ?? 0
    }
}
