import DailyValueContract
import Essentials
import PostgresClient
import StoreCore

/// The PostgreSQL schema as ordered migrations, applied by ``SchemaMigrator``.
enum PostgresSchema {
    /// Migration `n` (1-based) is `migrations[n - 1]`. Append only: never edit a released step.
    static let migrations: [String] = [
        // 1: observations keyed by identity (resource as jsonb), and outcome counters. Counters are sharded per
        //    connection so that many workers do not all queue on the same few counter rows; reads sum the shards.
        """
        CREATE TABLE observation (
            patient text NOT NULL,
            metric text NOT NULL,
            day text NOT NULL,
            version bigint NOT NULL,
            resource_id text NOT NULL,
            resource jsonb NOT NULL,
            version_id bigint NOT NULL,
            last_updated timestamptz NOT NULL,
            PRIMARY KEY (patient, metric, day)
        );
        CREATE TABLE outcome_count (
            metric text NOT NULL,
            outcome text NOT NULL,
            shard smallint NOT NULL,
            count bigint NOT NULL,
            PRIMARY KEY (metric, outcome, shard)
        );
        """,
        // 2: FHIR reads by resource id (`Observation/{id}`).
        "CREATE INDEX observation_resource_id ON observation (resource_id);",
        // 3: resources above ~2 KB (PostgreSQL's TOAST threshold) are compressed with lz4 instead of pglz: less
        //    server CPU per row for a little more space (bench/NOTES.md). Metadata only: stored
        //    values keep their compression until rewritten. A server built without lz4 keeps pglz.
        """
        DO $$
        BEGIN
            ALTER TABLE observation ALTER COLUMN resource SET COMPRESSION lz4;
        EXCEPTION WHEN feature_not_supported THEN
            RAISE NOTICE 'lz4 is not available on this server: resources stay pglz-compressed';
        END
        $$;
        """,
        // 4: the lifecycle (docs/LIFECYCLE.md): the stored status and clinical value decide `amended`. Rows of older
        //    builds get their status from the resource; their value is unknown (NULL), so a final one replaced by
        //    any value becomes amended.
        """
        ALTER TABLE observation ADD COLUMN status text, ADD COLUMN clinical_value text;
        UPDATE observation SET status = resource->>'status';
        """,
        // 5: the retraction ledger: the highest retraction per day, kept also for days never stored, so that an equal
        //    or lower version arriving later never brings the day back.
        """
        CREATE TABLE retraction (
            patient text NOT NULL,
            metric text NOT NULL,
            day text NOT NULL,
            version bigint NOT NULL,
            reason text NOT NULL,
            recorded_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (patient, metric, day)
        );
        """,
        // 6: finalize finds settled preliminary days through a partial index (small: preliminary days only) in key
        //    order, chunk by chunk; the ledger keeps a deleted day's last meta.versionId, so that a day re-stored
        //    after a delete-mode retraction continues from it (docs/LIFECYCLE.md). The index is built inside the
        //    migration's transaction: writers wait for it once, on upgrade. `observation` is locked before
        //    `retraction`, in the order an upsert takes them, so a worker still running cannot deadlock with it.
        """
        CREATE INDEX observation_preliminary ON observation (day, patient, metric) WHERE status = 'preliminary';
        ALTER TABLE retraction ADD COLUMN version_id bigint;
        """,
        // 7: schema 4, facts not documents (docs/STORAGE.md). The resource becomes `document`: compressed by the
        //    worker (zstd with a shipped dictionary), without the meta and status the columns hold, and never parsed
        //    by the server. The facts SQL users query get typed columns; the clinical value becomes a 16-byte digest.
        //    Metadata only (no rewrite, a moment's lock): rows of schema 3 keep `resource` and `clinical_value`,
        //    stay readable whole, and are rewritten by the next upsert of their day or by `storectl migrate`.
        //    The resource-id index goes: no statement reads by it (a FHIR read by id is the FHIR store's job). The
        //    check (not validated: every existing row passes) refuses a replace by a pod of the older build of a row
        //    written in schema 4, which would leave a stale document beside a newer resource.
        """
        ALTER TABLE observation ALTER COLUMN resource DROP NOT NULL,
            ADD COLUMN document bytea, ADD COLUMN clinical_digest bytea,
            ADD COLUMN value double precision, ADD COLUMN unit text,
            ADD COLUMN min double precision, ADD COLUMN max double precision,
            ADD COLUMN systolic double precision, ADD COLUMN diastolic double precision,
            ADD COLUMN period_start timestamptz, ADD COLUMN period_end timestamptz;
        DROP INDEX IF EXISTS observation_resource_id;
        ALTER TABLE observation
            ADD CONSTRAINT observation_one_shape CHECK (resource IS NULL OR document IS NULL) NOT VALID;
        """,
        // 8: population scale (docs/PARTITIONING.md): `observation` becomes a table partitioned by range of `day`, a
        //    partition a month (`observation_YYYY_MM`), so that retention drops whole months. The table as it was
        //    becomes the partition `observation_legacy` of every day before the month after its latest day (or this
        //    month): no row is copied, and ATTACH checks the bound with one scan while writers wait. Months are
        //    created ahead by the store and on demand (`observation_ensure_partitions`), never for a month wholly
        //    before the retention horizon (`retention_horizon`, set by `storectl retention`).
        """
        SET LOCAL statement_timeout = 0;  -- max(day) and ATTACH each scan the old table once, however large
        ALTER TABLE observation RENAME TO observation_legacy;
        ALTER INDEX observation_pkey RENAME TO observation_legacy_pkey;
        ALTER INDEX observation_preliminary RENAME TO observation_legacy_preliminary;
        CREATE TABLE observation (LIKE observation_legacy INCLUDING DEFAULTS INCLUDING STORAGE INCLUDING COMPRESSION)
            PARTITION BY RANGE (day);
        ALTER TABLE observation ADD CONSTRAINT observation_pkey PRIMARY KEY (patient, metric, day),
            ADD CONSTRAINT observation_one_shape CHECK (resource IS NULL OR document IS NULL) NOT VALID;
        CREATE INDEX observation_preliminary ON observation (day, patient, metric) WHERE status = 'preliminary';
        DO $$
        DECLARE
            bound date;
        BEGIN
            IF EXISTS (SELECT FROM observation_legacy) THEN
                SELECT (date_trunc('month', greatest(current_date, max(day)::date)) + interval '1 month')::date
                    INTO bound FROM observation_legacy;
                EXECUTE format('ALTER TABLE observation ATTACH PARTITION observation_legacy FOR VALUES FROM (MINVALUE) TO (%L)',
                    to_char(bound, 'YYYY-MM-DD'));
            ELSE
                DROP TABLE observation_legacy;
            END IF;
        END
        $$;
        CREATE TABLE retention_horizon (
            singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
            keep_from text NOT NULL,
            set_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE FUNCTION observation_ensure_partitions(days text[]) RETURNS integer LANGUAGE plpgsql AS $f$
        DECLARE
            month date;
            legacy_bound date;
            horizon date;
            created integer := 0;
        BEGIN
            PERFORM pg_advisory_xact_lock(4923418417094643022);
            SELECT keep_from::date INTO horizon FROM retention_horizon;
            SELECT substring(pg_get_expr(c.relpartbound, c.oid) FROM 'TO \\(''([0-9-]+)''\\)')::date INTO legacy_bound
                FROM pg_class c WHERE c.relname = 'observation_legacy' AND c.relispartition
                    AND c.relnamespace = (SELECT relnamespace FROM pg_class WHERE oid = 'observation'::regclass);
            FOR month IN SELECT DISTINCT date_trunc('month', d::date)::date FROM unnest(days) AS d LOOP
                CONTINUE WHEN month < legacy_bound OR (month + interval '1 month')::date <= horizon
                    OR to_regclass(format('observation_%s', to_char(month, 'YYYY_MM'))) IS NOT NULL;
                -- Created apart, then attached: ATTACH takes SHARE UPDATE EXCLUSIVE on observation, which neither
                -- writers nor readers (an export's long snapshot) conflict with; CREATE … PARTITION OF takes
                -- ACCESS EXCLUSIVE and would queue every batch behind such a reader.
                EXECUTE format('CREATE TABLE %I (LIKE observation INCLUDING DEFAULTS INCLUDING CONSTRAINTS '
                    'INCLUDING STORAGE INCLUDING COMPRESSION)', format('observation_%s', to_char(month, 'YYYY_MM')));
                EXECUTE format('ALTER TABLE observation ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)',
                    format('observation_%s', to_char(month, 'YYYY_MM')), to_char(month, 'YYYY-MM-DD'),
                    to_char(month + interval '1 month', 'YYYY-MM-DD'));
                created := created + 1;
            END LOOP;
            RETURN created;
        END
        $f$;
        """,
        // 9: the erasure ledger (docs/PRIVACY.md): one entry per request, append only, keyed by the person's
        //    pseudonym (a keyed hash, never the id); its generation, which every batch reads under the retention
        //    lock; and the ids of erased resources, which an incremental export lists as deleted.
        """
        CREATE TABLE erasure (
            sequence bigserial PRIMARY KEY,
            pseudonym bytea NOT NULL CHECK (length(pseudonym) = 32),
            mode text NOT NULL CHECK (mode IN ('erase', 'withdraw', 'lift')),
            reference text NOT NULL,
            requested_at timestamptz NOT NULL DEFAULT now(),
            completed_at timestamptz,
            observations_deleted bigint NOT NULL DEFAULT 0,
            retractions_deleted bigint NOT NULL DEFAULT 0,
            audit_rows_deleted bigint NOT NULL DEFAULT 0
        );
        CREATE INDEX erasure_pseudonym ON erasure (pseudonym);
        CREATE TABLE erasure_state (
            singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
            generation bigint NOT NULL,
            key_fingerprint text
        );
        INSERT INTO erasure_state (generation) VALUES (0);
        CREATE TABLE erased_resource (
            resource_id text PRIMARY KEY,
            erased_at timestamptz NOT NULL DEFAULT now()
        );
        """,
    ]

    /// The advisory lock key that serializes schema work of concurrently starting workers ("DVP_SCHM").
    static let lockKey = "4923418417094643021"
}

/// Schema work in one transaction under `pg_advisory_xact_lock`, so that several workers starting at once apply each
/// step exactly once.
extension PostgresConnection: SchemaMigrating {
    package func withSchemaLock(_ body: () throws -> Void) throws {
        try StoreError.mapping {
            try transaction {
                try execute("SELECT pg_advisory_xact_lock($1::bigint)", [PostgresSchema.lockKey])
                try body()
            }
        }
    }

    package func createSchemaVersionTable() throws {
        try executeScript(
            """
            CREATE TABLE IF NOT EXISTS schema_version (
                version integer PRIMARY KEY,
                applied_at timestamptz NOT NULL DEFAULT now()
            )
            """)
    }

    package func schemaVersion() throws -> Int {
        Int(try execute("SELECT coalesce(max(version), 0) FROM schema_version").integer(0, 0))
    }

    package func apply(_ migration: String, recordingVersion version: Int) throws {
        try executeScript(migration)
        try execute("INSERT INTO schema_version (version) VALUES ($1::integer)", [String(version)])
    }
}
