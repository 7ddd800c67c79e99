import CommandLineOptions
import Foundation
import Kafka

/// The `dlq` commands and their dispatch.
enum DLQ {
    struct Command: Sendable {
        var name: String
        var usage: String
        var summary: String
        var options: [CommandLineOption]
        var run: @Sendable (ParsedCommandLine) async throws -> Int32

        var parser: CommandLineParser { CommandLineParser(options, repeats: .rejected) }
        var listing: String { "  " + name.padding(toLength: 10, withPad: " ", startingAt: 0) + summary }
        var help: String { parser.helpText(header: "usage: dlq \(usage)\n\n\(summary)", footer: DLQ.exitStatuses) }
    }

    static let commands: [Command] = [
        Command(
            name: "stats", usage: "stats [--brokers B] [--dlq-topic T] [--retention 14d] [--prometheus-file F]",
            summary: "Dead letters by error class, stage, origin, worker version and day; the oldest unread one's "
                + "age against the retention.",
            options: StatsCommand.options, run: StatsCommand.run),
        Command(
            name: "redrive",
            usage: "redrive [--dry-run] [--error-class C]... [--since T] [--until T] [--origin-partition N]... "
                + "[--key K] [--max N] [--rate N] [--catalog FILE]",
            summary: "Re-validate the selected dead letters with the current catalog; republish those that pass to "
                + "their origin topic, quarantine the rest.",
            options: RedriveCommand.options, run: RedriveCommand.run),
    ]

    static let exitStatuses = """
        exit status: 0 done; 1 done, some records quarantined (or would be, with --dry-run); 2 bad arguments;
        3 Kafka failure (nothing past the last committed batch counts as done: run again to continue).
        """

    static let overview = """
        usage: dlq COMMAND [OPTIONS]

        Look at dead letters and send them back after a fix.

        commands:
        \(commands.map(\.listing).joined(separator: "\n"))

        Run `dlq COMMAND --help` for a command's options.
        \(exitStatuses)
        """

    /// Runs the command line and returns the exit status.
    static func run(_ arguments: [String]) async -> Int32 {
        guard let name = arguments.first else {
            StandardError.print(overview)
            return UsageError.exitStatus
        }
        if ["--help", "-h", "help"].contains(name) {
            print(overview)
            return 0
        }
        guard let command = commands.first(where: { $0.name == name }) else {
            return fail(UsageError.exitStatus, "dlq: unknown command '\(name)'; run `dlq --help` for the commands")
        }
        do {
            let parsed = try command.parser.parse(
                Array(arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
            if parsed.wantsHelp {
                print(command.help)
                return 0
            }
            return try await command.run(parsed)
        } catch let error as UsageError {
            return fail(UsageError.exitStatus, "dlq \(name): \(error.message)\nusage: dlq \(command.usage)")
        } catch let error as KafkaError {
            return fail(3, "dlq \(name): \(error)")
        } catch {
            return fail(3, "dlq \(name): \(error)")
        }
    }

    static func fail(_ status: Int32, _ message: String) -> Int32 {
        StandardError.print(message)
        return status
    }
}
