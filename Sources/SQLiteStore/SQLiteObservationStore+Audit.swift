import DailyValueContract
import Essentials
import SQLiteClient
import StoreCore

extension SQLiteObservationStore {
    public func installVersionAudit() async throws {
        try await withConnection { connection in
            try connection.transaction {
                try connection.execute(
                    """
                    CREATE TABLE IF NOT EXISTS version_audit (
                        patient TEXT NOT NULL, metric TEXT NOT NULL, day TEXT NOT NULL,
                        old_version INTEGER NOT NULL, new_version INTEGER NOT NULL,
                        changed_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
                    );
                    CREATE TRIGGER IF NOT EXISTS observation_version_audit AFTER UPDATE OF version ON observation
                    BEGIN
                        INSERT INTO version_audit (patient, metric, day, old_version, new_version)
                        VALUES (OLD.patient, OLD.metric, OLD.day, OLD.version, NEW.version);
                    END;
                    """)
            }
        }
    }

    public func versionAudit() async throws -> VersionAuditSummary {
        try await withConnection { connection in
            let installed =
                try connection.statement(
                    "SELECT count(*) FROM sqlite_schema WHERE type = 'trigger' AND name = 'observation_version_audit'"
                ).query { $0.integer(0) }.first ?? 0
            guard installed > 0 else {
                throw StoreError(.usage, "the version audit is not installed in \(self.path) (run audit-install)")
            }
            let totals = try connection.statement(
                "SELECT count(*), count(*) FILTER (WHERE new_version < old_version) FROM version_audit"
            ).query { VersionAuditSummary(updates: $0.integer(0), decreases: $0.integer(1)) }
            return totals.first ?? VersionAuditSummary(updates: 0, decreases: 0)
        }
    }
}
