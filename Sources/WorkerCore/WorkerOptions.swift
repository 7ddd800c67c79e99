import CommandLineOptions
import Observability
import ObservationStores
import StoreCore

/// The worker's command line: every flag, its `DVP_*` environment twin and its help, in one place.
///
/// `WorkerConfiguration.parse` reads them; `worker --help` (``WorkerHelp``) is generated from them.
enum WorkerOptions {
    static let kafka: [CommandLineOption] = [
        .value("--brokers", "LIST", help: "bootstrap servers of a real Kafka cluster (DVP_BROKERS)"),
        .value(
            "--brokers-file", "PATH",
            help: """
                read the bootstrap list from a file's first line (e.g. the one `devbroker
                --bootstrap-file PATH` writes); --brokers wins when both are given. With a
                devbroker's file the group timings default to session.timeout.ms=6000 and
                heartbeat.interval.ms=1000 (the mock's rebalances wait the session timeout)
                """),
        .value("--topic", "NAME", help: "topic to consume (default daily-values)")
            .typed(.string, default: "daily-values"),
        .value("--group", "NAME", help: "consumer group (default daily-values-worker); a new group replays the topic")
            .typed(.string, default: "daily-values-worker"),
        .value("--dlq-topic", "NAME", help: "dead-letter topic (default <topic>.dlq)"),
        .value(
            "--start", "POSITION",
            help: """
                where a group without committed offsets starts: committed|earliest (both
                start at the earliest offset) or latest (default committed)
                """
        ).choice(of: WorkerConfiguration.StartPosition.self, default: .committed),
        .value(
            "--start-time", "INSTANT",
            help: """
                backfill from a point in time: partitions without a committed offset start at
                the first record at or after INSTANT (RFC 3339 or epoch ms); needs a real
                broker (the embedded mock cannot look offsets up by time: it falls back to
                --start and logs a warning)
                """),
        .value(
            "-X", "key=value", repeatable: true,
            help: """
                librdkafka property passed through (repeatable; SASL/TLS/tuning), also as
                DVP_X_<PROPERTY> with '.' as '_', e.g. DVP_X_SASL_PASSWORD=… → sasl.password
                """
        ).secret(),
        .value(
            "--kafka-property-file", "key=PATH", repeatable: true,
            help: """
                librdkafka property whose value is a file's contents (trailing line breaks
                removed), for secrets mounted as files: e.g. sasl.password=/run/secrets/pw
                (repeatable; also DVP_XFILE_<PROPERTY>=PATH, e.g. DVP_XFILE_SASL_PASSWORD);
                a property given both ways is refused; a missing or empty file stops the
                worker (exit 2); the contents never appear in a message
                """),
    ]

    static let store: [CommandLineOption] = [
        .value(
            "--store", "LOCATION",
            help: """
                sqlite:PATH (embedded default), postgres://… (libpq URI; TLS options pass
                through) or fhir+https://HOST/BASE (a FHIR R4 server; fhir+http:// for local
                tests). Default sqlite:daily-values.sqlite
                PostgreSQL defaults, each overridden by the URI's own query parameter (or
                libpq's PG* variable): connect_timeout=10, keepalives=1, keepalives_idle=30,
                keepalives_interval=10, keepalives_count=3, tcp_user_timeout=30000 (ms),
                application_name dvp-worker, and options='-c statement_timeout=30s
                -c lock_timeout=10s' (the URI's options are appended, so its -c wins)
                """
        ).typed(.string, default: "sqlite:daily-values.sqlite").secret(),
        .value(
            "--store-file", "PATH",
            help: """
                read the store LOCATION from a file's first line (e.g. a PostgreSQL URI with
                its password, from a mounted Secret, instead of an environment variable);
                --store wins when both are given; a missing or empty file: exit 2
                """),
        .value(
            "--store-timeout", "SECONDS",
            help: """
                client-side bound on each PostgreSQL round trip or FHIR request (default 40):
                a statement or request still unanswered (frozen server, half-open
                connection) is abandoned, the worker turns not-ready and retries the batch
                """
        ).typed(.number(0...3600, exclusiveMinimum: true), default: "40"),
        .value(
            "--store-connections", "N",
            help: """
                PostgreSQL: connections that write each batch at the same time, its records
                split into lanes by patient (each patient's records in order, one
                transaction per lane; default 2, 1-16); SQLite and FHIR servers take 1
                """
        ).typed(.integer(1...16)),
        .value(
            "--retraction-mode", "MODE",
            help: """
                what a retraction does to a stored day on SQLite and PostgreSQL:
                entered-in-error (default: the resource stays with that status) or delete
                (the row is removed); the retraction ledger keeps the day retracted either
                way, until a higher version restores it (docs/LIFECYCLE.md)
                """
        ).choice(of: RetractionMode.self, default: .enteredInError),
        .value(
            "--on-version-conflict", "ACTION",
            help: """
                an event of the stored version with a different value is counted `conflict`
                and logged, and the first stored value kept: ignore (default) or dead-letter
                (also sent to the dead-letter topic, class VersionConflict)
                """
        ).choice(of: VersionConflictAction.self, default: .ignore),
    ]

    /// Shared with `storectl`: defined once in ``FHIRStoreOptions``.
    static let fhir = FHIRStoreOptions.options

    static let mapping: [CommandLineOption] = [
        .value("--identifier-system", "URI", help: "Observation.identifier.system"),
        .value(
            "--id-key-file", "PATH",
            help: """
                secret HMAC key for the Observation id (or DVP_ID_KEY with the key itself);
                REQUIRED: without one the worker refuses to start (exit 2), unless
                - the brokers come from --brokers-file naming a devbroker's bootstrap file
                  (it carries the line "# devbroker: ..." and every address is on loopback:
                  127.0.0.0/8, ::1, localhost), or
                - --allow-development-key is given;
                then the published development key is used (guessable ids; never in
                production) and a warning logged
                """),
        .flag("--allow-development-key", help: "run without an id key against any broker (development only)"),
        .value(
            "--erasure-key-file", "PATH",
            help: """
                secret key persons are hashed with in the store's erasure ledger
                (docs/PRIVACY.md); default: the id key. storectl erase, dlq redrive and
                the ingest gateway must use the same key
                """),
        .value("--meta-source", "URI", help: "Observation.meta.source"),
        .value("--source-extension-url", "URI", help: "URL of the HealthKit source provenance extension"),
        .value(
            "--statistics-code-system", "URI",
            help: """
                the product CodeSystem of the blood-pressure panel's min/max codes
                (systolic-minimum, …; docs/CLINICAL.md)
                """),
        .value(
            "--subject-reference", "MODE",
            help: """
                literal (default): subject {"reference":"Patient/{id}"}; logical: subject
                {"identifier":{"system":…,"value":"{id}"}} for servers with referential
                integrity that hold no Patient/{id} (needs --patient-identifier-system)
                """
        ).typed(.choice(["literal", "logical"]), default: "literal"),
        .value("--patient-identifier-system", "URI", help: "subject.identifier.system in logical mode"),
        .flag(
            "--store-device-name",
            help: """
                also store source.name, the free-text device name (off by default: it is
                often a person's name, i.e. PHI); only with a documented reason
                """),
        .value("--catalog", "FILE", help: "metric catalog overrides (JSON; codes, units, ranges)"),
    ]

    static let processing: [CommandLineOption] = [
        .value("--batch-size", "N", help: "records per batch (default 1000)")
            .typed(.integer(1...100_000), default: "1000"),
        .value("--batch-ms", "MS", help: "flush a partial batch after MS milliseconds (default 100)")
            .typed(.integer(1...60_000), default: "100"),
        .value(
            "--version-cache", "N",
            help: """
                identities whose stored version is cached to skip no-op upserts (default
                200000, at most 8.4 MB; 0 disables)
                """
        ).typed(.integer(0...100_000_000), default: "200000"),
        .flag(
            "--until-caught-up",
            help: """
                exit 0 once every assigned partition reached its end (backfill jobs); prints
                a summary
                """),
        .value(
            "--progress-interval", "SECONDS",
            help: """
                with --until-caught-up: log a progress line (consumed, remaining lag, rate,
                ETA) every SECONDS (default 10; 0 = never)
                """
        ).typed(.number(0...86_400), default: "10"),
        .value(
            "--drain-timeout", "SECONDS",
            help: """
                one deadline for the whole stop (SIGTERM/SIGINT, or the end of a catch-up):
                finish the batch (40%), commit (55%), leave the group (90%), flush (97%);
                at the deadline, or on a second signal, the process exits with 3
                (default 30; set the pod's grace period above it)
                """
        ).typed(.number(0...3600, exclusiveMinimum: true), default: "30"),
    ]

    static let operations: [CommandLineOption] = [
        .value(
            "--http-address", "ADDR",
            help: """
                IP address of the HTTP endpoint (default 0.0.0.0); 0.0.0.0 or :: listen on
                every IPv4 and IPv6 address, any other address on that address only
                """
        ).typed(.string, default: "0.0.0.0"),
        .value(
            "--http-port", "PORT",
            help: """
                /metrics (Prometheus), /healthz, /readyz (default 9464; 0 = any free port); /readyz
                answers one word (ready, starting, stopping, store-unavailable, store-throttled,
                store-unauthorized, dead-letter-unavailable, broker-unavailable), never error text
                """
        ).typed(.integer(0...65_535), default: "9464"),
        .value("--worker-id", "ID", help: "name in logs and dead-letter headers (default the host name)"),
        .value(
            "--log-level", "LEVEL",
            help: """
                debug|info|warning|error (default info); logs are JSON lines on stderr (all of
                stderr, fatal exits included) and never contain health values, patient ids,
                secrets (property values, passwords, tokens) or a server's error text
                """
        ).typed(.choice(Logger.Level.names), default: "info"),
    ]

    /// The parser: every flag but `-X` and `--kafka-property-file` has the twin `DVP_` + its name (those two have the
    /// `DVP_X_*` and `DVP_XFILE_*` properties).
    static let parser = CommandLineParser(sections: [
        .init("Kafka", kafka.map(twin)), .init("Store", store.map(twin)),
        .init("FHIR store", fhir.map(twin)), .init("Mapping", mapping.map(twin)),
        .init("Processing", processing.map(twin)), .init("Operations", operations.map(twin)),
    ])

    private static func twin(_ option: CommandLineOption) -> CommandLineOption {
        ["-X", "--kafka-property-file"].contains(option.name) ? option : option.withEnvironmentTwin()
    }
}
