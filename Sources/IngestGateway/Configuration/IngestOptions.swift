import CommandLineOptions
import IngestAuth
import Observability

/// The gateway's command line: every flag, its `DVP_*` environment twin and its help, in one place.
///
/// ``IngestConfiguration/parse(_:environment:)`` reads them; `ingest --help` (``IngestHelp``) is generated from them.
enum IngestOptions {
    static let http: [CommandLineOption] = [
        .value(
            "--http-address", "ADDR",
            help: """
                IP address to listen on (default 0.0.0.0); 0.0.0.0 or :: listen on every IPv4
                and IPv6 address, any other address on that address only
                """
        ).typed(.string, default: "0.0.0.0"),
        .value("--http-port", "PORT", help: "POST /v1/daily-values (default 8080; 0 = any free port)").typed(
            .integer(0...65_535), default: "8080"),
        .value(
            "--admin-address", "ADDR",
            help: "IP address of the admin listener (default 0.0.0.0): /healthz, /readyz, /metrics"
        ).typed(.string, default: "0.0.0.0"),
        .value(
            "--admin-port", "PORT",
            help: """
                the admin listener's port (default 9465; 0 = any free port): the probes and
                /metrics, never served on --http-port
                """
        ).typed(.integer(0...65_535), default: "9465"),
        .value(
            "--head-timeout", "SECONDS",
            help: """
                a request head must be whole within this of its connection's start (default 5);
                a slower client (a slowloris) is cut off and counted
                """
        ).typed(.number(0.1...600), default: "5"),
        .value(
            "--min-body-rate", "BYTES",
            help: """
                bytes per second a body must arrive at, on average from its head, once
                --head-timeout has passed (default 8192; 0 = no minimum); slower: cut off, counted
                """
        ).typed(.integer(0...(1 << 30)), default: "8192"),
        .value(
            "--threads", "N", help: "HTTP threads polling the connections (default: the number of cores, at least 2)"
        ).typed(.integer(1...64)),
        .value("--max-connections", "N", help: "connections served at once (default 1024); more are refused").typed(
            .integer(1...65_536), default: "1024"),
        .value(
            "--max-requests-per-connection", "N",
            help: """
                requests one kept-alive HTTP/1.1 connection may carry (default 1000; 1 = a
                connection per request); the last answer says Connection: close
                """
        ).typed(.integer(1...1_000_000), default: "1000"),
        .value(
            "--max-connections-per-address", "N",
            help: "connections at once from one client address (default 0 = no limit: behind a load balancer)"
        ).typed(.integer(0...65_536), default: "0"),
    ]

    static let kafka: [CommandLineOption] = [
        .value("--brokers", "LIST", help: "bootstrap servers of the Kafka cluster (DVP_BROKERS)"),
        .value(
            "--brokers-file", "PATH",
            help: """
                read the bootstrap list from a file's first line (e.g. the one `devbroker
                --bootstrap-file PATH` writes); --brokers wins when both are given
                """),
        .value("--topic", "NAME", help: "topic to publish to (default daily-values)").typed(
            .string, default: "daily-values"),
        .value(
            "-X", "key=value", repeatable: true,
            help: """
                librdkafka property passed through (repeatable; SASL/TLS/tuning), also as
                DVP_X_<PROPERTY> with '.' as '_', e.g. DVP_X_SASL_PASSWORD=… → sasl.password;
                the producer stays idempotent with acks=all
                """
        ).secret(),
        .value(
            "--kafka-property-file", "key=PATH", repeatable: true,
            help: """
                librdkafka property whose value is a file's contents (trailing line breaks
                removed), e.g. sasl.password=/run/secrets/pw (repeatable; also
                DVP_XFILE_<PROPERTY>=PATH); the contents never appear in a message
                """),
    ]

    static let validation: [CommandLineOption] = [
        .value(
            "--catalog", "FILE",
            help: "metric catalog overrides (JSON; the same file and meaning as the worker's --catalog)"),
        .value("--max-records", "N", help: "records per request (default 10000); more: 413").typed(
            .integer(1...1_000_000), default: "10000"),
        .value(
            "--max-body-bytes", "N",
            help: """
                request body bytes after gzip is undone (default 4194304); more: 413, and a
                gzip body stops inflating there
                """
        ).typed(.integer(1024...(1 << 30)), default: "4194304"),
    ]

    static let flow: [CommandLineOption] = [
        .value("--max-concurrent-requests", "N", help: "requests being handled at once (default 256); more: 429").typed(
            .integer(1...65_536), default: "256"),
        .value(
            "--max-in-flight-bytes", "N",
            help: """
                body bytes the gateway holds for the requests being handled, together: announced,
                received (chunked bodies as they arrive), inflated (default 67108864); more: 429.
                The producer's queue is bounded to twice this (queue.buffering.max.kbytes)
                """
        ).typed(.integer(1024...(1 << 40)), default: "67108864"),
        .value(
            "--max-tenant-requests", "N",
            help: """
                requests of one tenant being handled at once (default: --max-concurrent-requests,
                no share of its own); more: 429. With several tenants set it (e.g. to half), so
                that one tenant cannot take every slot
                """
        ).typed(.integer(1...65_536)),
        .value(
            "--max-tenant-in-flight-bytes", "N",
            help: """
                body bytes one tenant's requests hold together (default: --max-in-flight-bytes;
                at least --max-body-bytes); more: 429
                """
        ).typed(.integer(1024...(1 << 40))),
        .value(
            "--request-timeout", "SECONDS",
            help: """
                from a request's head to its answer (default 10): records the broker has not
                acknowledged by then make it 503 with Retry-After
                """
        ).typed(.number(0.1...600), default: "10"),
        .value(
            "--idempotency-ttl", "SECONDS",
            help: """
                how long the receipt of a request with an Idempotency-Key is kept for a retry
                with the same key and body (default 86400)
                """
        ).typed(.number(1...(30 * 86_400)), default: "86400"),
        .value(
            "--idempotency-max-keys", "N",
            help: "receipts kept at most (default 10000); the oldest go first"
        ).typed(.integer(0...10_000_000), default: "10000"),
        .value(
            "--idempotency-max-records", "N",
            help: "records in the kept receipts at most (default 1000000, ~16 B each)"
        ).typed(.integer(0...1_000_000_000), default: "1000000"),
    ]

    static let authentication: [CommandLineOption] = [
        .value(
            "--api-keys", "FILE",
            help: """
                API keys: a file of their SHA-256 hashes, each with its tenant and patient-id
                prefix (`sha256:<hex>  tenant=T  patients=PREFIX`; re-read when it changes;
                docs/INGEST-AUTH.md)
                """),
        .value(
            "--jwks", "FILE",
            help: """
                JWT verification keys (a JWKS; RS256/ES256; re-read when it changes); needs
                --jwt-audience and --jwt-issuer. A JWT must grant the scope daily-values:write
                and carry dvp_tenant and dvp_patient_prefix (docs/INGEST-AUTH.md)
                """),
        .value("--jwt-audience", "AUD", help: "the `aud` a JWT must carry"),
        .value("--jwt-issuer", "ISS", help: "the `iss` a JWT must carry"),
        .value(
            "--jwt-max-lifetime", "SECONDS",
            help: """
                the longest a JWT may be valid: exp - iat (exp - nbf without iat, exp - now
                without either); a token valid for longer is refused (default \(defaultJWTMaxLifetime),
                at most \(IngestConfiguration.maximumJWTLifetimeSeconds))
                """
        ).typed(
            .number(1...Double(IngestConfiguration.maximumJWTLifetimeSeconds)), default: "\(defaultJWTMaxLifetime)"),
        .flag(
            "--insecure-no-auth",
            help: """
                accept every request without a credential, for local demos only (logged
                loudly at start and every minute; dvp_ingest_insecure_no_auth is 1)
                """),
    ]

    static let erasure: [CommandLineOption] =
        ParsedCommandLine.storeLocationOptions(
            "--erasure-store",
            help: """
                the workers' store (sqlite:PATH or postgres://…): a request with a record of a
                person its erasure ledger refuses (erased, or consent withdrawn) is answered
                403 patient-erased and nothing is published; without it such events are
                published and the workers refuse them (docs/PRIVACY.md)
                """)
        + ParsedCommandLine.erasureKeyOptions + [
            .value(
                "--erasure-refresh", "SECONDS",
                help: """
                    how often the ledger is re-read in the background (default 5): an erasure
                    reaches the gateway within this; a request never waits for the store
                    """
            ).typed(.number(0.1...3600), default: "5")
        ]

    static let operations: [CommandLineOption] = [
        .value(
            "--drain-timeout", "SECONDS",
            help: """
                one deadline for the whole stop (SIGTERM/SIGINT): stop accepting, answer the
                requests in flight (until 80%, then 503), flush the producer; at the deadline,
                or on a second signal, the process exits with 3 (default 30)
                """
        ).typed(.number(1...3600), default: "30"),
        .value(
            "--log-level", "LEVEL",
            help: """
                debug|info|warning|error (default info); logs are JSON lines on stderr and never
                contain tokens, secrets, health values or patient ids
                """
        ).typed(.choice(Logger.Level.names), default: "info"),
    ]

    /// `--jwt-max-lifetime`'s default in seconds, the policy's own.
    private static let defaultJWTMaxLifetime = JWTPolicy.defaultMaxLifetime.components.seconds

    /// The parser: every flag but `-X` and `--kafka-property-file` has the twin `DVP_` + its name (those two have the
    /// `DVP_X_*` and `DVP_XFILE_*` properties).
    static let parser = CommandLineParser(sections: [
        .init("HTTP", http.map(twin)), .init("Kafka", kafka.map(twin)), .init("Validation", validation.map(twin)),
        .init("Flow control", flow.map(twin)), .init("Authentication (one is required)", authentication.map(twin)),
        .init("Erasure", erasure.map(twin)), .init("Operations", operations.map(twin)),
    ])

    private static func twin(_ option: CommandLineOption) -> CommandLineOption {
        ["-X", "--kafka-property-file"].contains(option.name) ? option : option.withEnvironmentTwin()
    }
}
