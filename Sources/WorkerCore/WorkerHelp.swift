/// `worker --help`.
public enum WorkerHelp {
    public static let text = """
        worker — consume DailyValue events, map them to FHIR R4 Observations, upsert them version-guarded.

        USAGE: worker --brokers HOST:PORT[,…] [options]

        Every flag has an environment twin: DVP_ + the flag upper-cased with '-' as '_' (e.g. DVP_BATCH_MS).

        Kafka
          --brokers LIST            bootstrap servers of a real Kafka cluster (DVP_BROKERS)
          --brokers-file PATH       read the bootstrap list from a file's first line (e.g. the one `devbroker
                                    --bootstrap-file PATH` writes); --brokers wins when both are given
          --topic NAME              topic to consume (default daily-values)
          --group NAME              consumer group (default daily-values-worker); a new group replays the topic
          --dlq-topic NAME          dead-letter topic (default <topic>.dlq)
          --start POSITION          where a group without committed offsets starts: committed|earliest (both
                                    start at the earliest offset) or latest (default committed)
          --start-time INSTANT      backfill from a point in time: partitions without a committed offset start at
                                    the first record at or after INSTANT (RFC 3339 or epoch ms); needs a real
                                    broker (the embedded mock cannot look offsets up by time: it falls back to
                                    --start and logs a warning)
          -X key=value              librdkafka property passed through (repeatable; SASL/TLS/tuning), also as
                                    DVP_X_<PROPERTY> with '.' as '_', e.g. DVP_X_SASL_PASSWORD=… → sasl.password

        Store
          --store LOCATION          sqlite:PATH (embedded default) or postgres://… (libpq URI; TLS options pass
                                    through). Default sqlite:daily-values.sqlite
                                    PostgreSQL defaults, each overridden by the URI's own query parameter (or
                                    libpq's PG* variable): connect_timeout=10, keepalives=1, keepalives_idle=30,
                                    keepalives_interval=10, keepalives_count=3, tcp_user_timeout=30000 (ms),
                                    application_name dvp-worker, and options='-c statement_timeout=30s
                                    -c lock_timeout=10s' (the URI's options are appended, so its -c wins)
          --store-timeout SECONDS   client-side bound on each PostgreSQL round trip (default 40): a statement
                                    still unanswered (frozen server, half-open connection) is cancelled, the
                                    worker turns not-ready and retries the batch on a new connection

        Mapping
          --identifier-system URI   Observation.identifier.system
          --id-key-file PATH        secret HMAC key for the Observation id (or DVP_ID_KEY with the key itself);
                                    REQUIRED: without one the worker refuses to start (exit 2), unless
                                    - the brokers come from --brokers-file naming a devbroker's bootstrap file
                                      (it carries the line "# devbroker: ..." and every address is on loopback:
                                      127.0.0.0/8, ::1, localhost), or
                                    - --allow-development-key is given;
                                    then the published development key is used (guessable ids; never in
                                    production) and a warning logged
          --allow-development-key   run without an id key against any broker (development only)
          --meta-source URI         Observation.meta.source
          --catalog FILE            metric catalog overrides (JSON; codes, units, ranges)

        Processing
          --batch-size N            records per batch (default 1000)
          --batch-ms MS             flush a partial batch after MS milliseconds (default 100)
          --version-cache N         identities whose stored version is cached to skip no-op upserts (default
                                    200000, about 10 MB; 0 disables)
          --until-caught-up         exit 0 once every assigned partition reached its end (backfill jobs); prints
                                    a summary
          --drain-timeout SECONDS   one deadline for the whole stop (SIGTERM/SIGINT, or the end of a catch-up):
                                    finish the batch (40%), commit (55%), leave the group (90%), flush (97%);
                                    at the deadline, or on a second signal, the process exits with 3
                                    (default 30; set the pod's grace period above it)

        Operations
          --http-address ADDR       IP address of the HTTP endpoint (default 0.0.0.0); 0.0.0.0 or :: listen on
                                    every IPv4 and IPv6 address, any other address on that address only
          --http-port PORT          /metrics (Prometheus), /healthz, /readyz (default 9464; 0 = any free port)
          --worker-id ID            name in logs and dead-letter headers (default the host name)
          --log-level LEVEL         debug|info|warning|error (default info); logs are JSON lines on stderr and
                                    never contain health values or patient ids

        EXIT STATUS: 0 after a clean stop or catch-up; 1 on a fatal error; 2 on a configuration error;
        3 when the drain deadline was exceeded.
        """
}
