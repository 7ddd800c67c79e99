import CommandLineOptions
import Foundation
import ObservationUpsert
import StoreOptions

/// The `storectl` commands and their dispatch.
enum StoreCtl {
    struct Command: Sendable {
        var name: String
        var usage: String
        var summary: String
        var options: [CommandLineOption] = ParsedCommandLine.storeOptions
        var run: @Sendable (ParsedCommandLine) async throws -> Int32

        /// The command's parser: its options, positional arguments allowed, an option given twice rejected.
        var parser: CommandLineParser { CommandLineParser(options, allowsPositionals: true, repeats: .rejected) }

        /// The line in `storectl --help`.
        var listing: String { "  " + name.padding(toLength: 15, withPad: " ", startingAt: 0) + summary }

        /// `storectl COMMAND --help`, generated from the command's options.
        var help: String {
            parser.helpText(
                header: "usage: storectl \(usage)\n\n\(summary)",
                footer: "LOCATION: \(StoreLocation.acceptedForms); default from $DVP_STORE.")
        }
    }

    static let commands: [Command] = [
        Command(
            name: "counts", usage: "counts [--store S]",
            summary: "Upsert outcome totals per metric and overall.", run: Inspect.counts),
        Command(
            name: "show", usage: "show [--store S] PATIENT/METRIC/DAY",
            summary: "The stored FHIR Observation with meta.versionId and meta.lastUpdated.",
            run: Inspect.show),
        Command(
            name: "dump", usage: "dump [--store S]",
            summary: "One line per identity, `PATIENT/METRIC/DAY<TAB>VERSION`, sorted.",
            run: Inspect.dump),
        Command(
            name: "sizes", usage: "sizes [--store S]",
            summary: "Stored resource sizes (compact JSON bytes) per metric and overall: count, average, max.",
            run: Inspect.sizes),
        Command(
            name: "finalize", usage: "finalize [--store S] [--settle-hours H]",
            summary: "Flip preliminary days past their local end plus H hours to final (meta.versionId + 1).",
            options: ParsedCommandLine.storeOptions + [Finalize.settleOption], run: Finalize.run),
        Command(
            name: "audit-install", usage: "audit-install [--store S]",
            summary: "Install a trigger logging every version update into version_audit.",
            run: Audit.install),
        Command(
            name: "audit-check", usage: "audit-check [--store S]",
            summary: "Print the number of logged version decreases; exit 1 if any.",
            run: Audit.check),
    ]

    static let overview = """
        usage: storectl COMMAND [--store LOCATION] [ARGS]

        Inspect and audit a daily-values observation store.
        LOCATION: \(StoreLocation.acceptedForms); default from $DVP_STORE.

        commands:
        \(commands.map(\.listing).joined(separator: "\n"))

        Run `storectl COMMAND --help` for a command's usage.
        """

    /// Runs the command line and returns the exit status.
    static func run(_ arguments: [String]) async -> Int32 {
        guard let name = arguments.first else {
            StandardError.print(overview)
            return UsageError.exitStatus
        }
        if name == "--help" || name == "-h" || name == "help" {
            print(overview)
            return 0
        }
        guard let command = commands.first(where: { $0.name == name }) else {
            return fail(2, "storectl: unknown command '\(name)'; run `storectl --help` for the commands")
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
            return fail(UsageError.exitStatus, "storectl \(name): \(error.message)\nusage: storectl \(command.usage)")
        } catch {
            return fail(1, "storectl \(name): \(error)")
        }
    }

    static func fail(_ status: Int32, _ message: String) -> Int32 {
        StandardError.print(message)
        return status
    }

    /// Opens the store named by the arguments, runs `body`, and closes the store on every path.
    static func withStore<Result>(
        _ arguments: ParsedCommandLine, _ body: (any ObservationStore) async throws -> Result
    ) async throws -> Result {
        let store = try await makeObservationStore(
            try arguments.storeLocation(), postgres: PostgresClientOptions(applicationName: "dvp-storectl"),
            fhir: try FHIRStoreOptions.configuration(arguments))
        do {
            let result = try await body(store)
            await store.close()
            return result
        } catch {
            await store.close()
            throw error
        }
    }
}
