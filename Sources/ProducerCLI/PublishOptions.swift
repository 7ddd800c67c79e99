import CommandLineOptions
import Producer

/// `producer publish` options.
struct PublishOptions {
    var files: [String] = []
    var skipInvalid = false
    var allowInvalid = false
    var raw = false
    var batchSize = 50_000
    var connection = ConnectionOptions()
    var help = false

    static let parser = CommandLineParser(
        sections: [
            .init(
                "Options:",
                [
                    .flag(
                        "--skip-invalid",
                        help: """
                            send the valid events even if some are invalid (default: if any event is
                            invalid, nothing is sent). Invalid events still make the exit status 1.
                            """),
                    .flag("--allow-invalid", help: "like --skip-invalid, but invalid events alone do not fail the run"),
                    .flag(
                        "--raw",
                        help: """
                            send every record as is, without validation (to put poison messages on a
                            test topic); the key is the `patient` field when one can be read
                            """),
                    .value(
                        "--batch-size", "N",
                        help: """
                            records per producer batch (default 50000); the next batch is validated
                            while the previous one is in flight
                            """),
                ]),
            ConnectionOptions.section,
        ], allowsPositionals: true)

    static let help = parser.helpText(
        header: """
            Usage: producer publish [options] [FILE…]

            Validates DailyValue events (JSON lines, or one JSON array per file; `-` or no FILE = stdin) with the
            workers' own decoder, then publishes the original bytes, keyed by patient, and waits for every delivery
            report. Every invalid event is reported as `file:line: reason`.
            """,
        footer: """
            Progress goes to stderr every few seconds, and a final summary: read, sent, acknowledged, rejected,
            failed, elapsed time and rate.
            Exit status: 0 when every event read was acknowledged (with --allow-invalid: every valid one);
            1 when any event was invalid or not delivered; 2 for usage or configuration errors.
            """)

    /// Parses the arguments after `publish`.
    /// - Throws: ``UsageError`` or ``ProducerConfigurationError`` naming the option.
    init(arguments: [String], environment: [String: String]) throws {
        let parsed = try Self.parser.parse(arguments, environment: environment)
        help = parsed.wantsHelp
        files = parsed.positionals.isEmpty ? ["-"] : parsed.positionals
        allowInvalid = parsed.flags.contains("--allow-invalid")
        skipInvalid = allowInvalid || parsed.flags.contains("--skip-invalid")
        raw = parsed.flags.contains("--raw")
        batchSize = try parsed.integer("--batch-size", in: 1...1_000_000) ?? batchSize
        connection = ConnectionOptions(parsed)
        if raw, skipInvalid {
            throw ProducerConfigurationError(option: "--raw", rule: "cannot be combined with --skip-invalid")
        }
    }
}
