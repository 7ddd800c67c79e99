import CommandLineOptions

/// The `dlq` commands.
package enum DLQ {
    static let exitStatuses = """
        exit status: 0 done; 1 done, some records quarantined (or would be, with --dry-run); 2 bad arguments;
        3 Kafka or store failure (nothing past the last committed batch counts as done: run again to continue).
        """

    static let commands: [CommandLineSubcommand] = [
        CommandLineSubcommand(
            name: "stats", usage: "stats [--brokers B] [--dlq-topic T] [--retention 14d] [--prometheus-file F]",
            summary: "Dead letters by error class, stage, origin, worker version and day; the oldest unread one's "
                + "age against the retention.",
            options: StatsCommand.options, footer: exitStatuses, run: StatsCommand.run),
        CommandLineSubcommand(
            name: "redrive",
            usage: "redrive [--dry-run] [--error-class C]... [--since T] [--until T] [--origin-partition N]... "
                + "[--key K] [--max N] [--rate N] [--catalog FILE] (--store LOCATION | --no-erasure-check)",
            summary: "Re-validate the selected dead letters with the current catalog; republish those that pass to "
                + "their origin topic, quarantine the rest; drop (count `erased`, never republish or quarantine) "
                + "those of persons the store's erasure ledger refuses.",
            options: RedriveCommand.options, footer: exitStatuses, run: RedriveCommand.run),
    ]

    static let overview = """
        usage: dlq COMMAND [OPTIONS]

        Look at dead letters and send them back after a fix.

        commands:
        \(commands.map { $0.listing(width: 10) }.joined(separator: "\n"))

        Run `dlq COMMAND --help` for a command's options.
        \(exitStatuses)
        """

    /// Runs the command line and returns the exit status (any failure but a usage error is a Kafka one: 3).
    package static func run(_ arguments: [String]) async -> Int32 {
        await CommandLineSubcommand.dispatch(
            program: "dlq", arguments, commands: commands, overview: overview, failureStatus: { _ in 3 })
    }
}
