import CommandLineOptions

/// `ingest --help`, generated from the gateway's options.
public enum IngestHelp {
    public static let text = IngestOptions.parser.helpText(
        header: """
            ingest — the HTTP ingest gateway: authenticate, validate DailyValue events with the workers' own decoder,
            publish them (acks=all, idempotent, key = patient) and answer 202 with a receipt per record only once the
            broker acknowledged every one.

            USAGE: ingest --brokers HOST:PORT[,…] (--api-keys FILE | --jwks FILE … | --insecure-no-auth) [options]

            POST /v1/daily-values: a JSON array (application/json) or JSON lines (application/x-ndjson), optionally
            Content-Encoding: gzip; Idempotency-Key optional. docs/ingest-openapi.yaml describes every answer.
            Every flag has an environment twin: DVP_ + the flag upper-cased with '-' as '_' (e.g. DVP_MAX_RECORDS).
            """,
        footer: """
            EXIT STATUS: 0 after a clean stop; 1 on a fatal error; 2 on a configuration error; 3 when the drain
            deadline was exceeded or a second signal came (each with a JSON log line carrying exit_status).
            """)
}
