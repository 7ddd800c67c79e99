import CommandLineOptions

/// `worker --help`, generated from the worker's options.
public enum WorkerHelp {
    public static let text = WorkerOptions.parser.helpText(
        header: """
            worker — consume DailyValue events, map them to FHIR R4 Observations, upsert them version-guarded.

            USAGE: worker --brokers HOST:PORT[,…] [options]

            Every flag has an environment twin: DVP_ + the flag upper-cased with '-' as '_' (e.g. DVP_BATCH_MS).
            """,
        footer: """
            EXIT STATUS: 0 after a clean stop or catch-up; 1 on a fatal error; 2 on a configuration error;
            3 when the drain deadline was exceeded (each with a JSON log line carrying exit_status).
            """)
}
