import DailyValueContract
import Essentials
import PostgresClient
import StoreCore

extension PostgresObservationStore {
    public func installVersionAudit() async throws {
        try await withConnection { connection in
            try connection.transaction {
                try connection.execute("SELECT pg_advisory_xact_lock($1::bigint)", [PostgresSchema.lockKey])
                try connection.executeScript(
                    """
                    CREATE TABLE IF NOT EXISTS version_audit (
                        patient text NOT NULL, metric text NOT NULL, day text NOT NULL,
                        old_version bigint NOT NULL, new_version bigint NOT NULL,
                        changed_at timestamptz NOT NULL DEFAULT clock_timestamp()
                    );
                    CREATE OR REPLACE FUNCTION observation_version_audit() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN
                        INSERT INTO version_audit (patient, metric, day, old_version, new_version)
                        VALUES (OLD.patient, OLD.metric, OLD.day, OLD.version, NEW.version);
                        RETURN NEW;
                    END
                    $$;
                    CREATE OR REPLACE TRIGGER observation_version_audit AFTER UPDATE OF version ON observation
                        FOR EACH ROW EXECUTE FUNCTION observation_version_audit();
                    """)
            }
        }
    }

    public func versionAudit() async throws -> VersionAuditSummary {
        try await withConnection { connection in
            let installed = try connection.execute("SELECT to_regclass('version_audit') IS NOT NULL")
            guard installed.text(0, 0) == "t" else {
                throw StoreError(.usage, "the version audit is not installed (run audit-install)")
            }
            let totals = try connection.execute(
                "SELECT count(*), count(*) FILTER (WHERE new_version < old_version) FROM version_audit")
            return VersionAuditSummary(updates: try totals.integer(0, 0), decreases: try totals.integer(0, 1))
        }
    }
}
