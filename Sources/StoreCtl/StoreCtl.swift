import Foundation
import ObservationUpsert

/// The `storectl` commands and their dispatch.
enum StoreCtl {
    struct Command: Sendable {
        var name: String
        var usage: String
        var summary: String
        var options: Set<String>
        var hidden = false
        var run: @Sendable (Arguments) async throws -> Int32

        /// The line in `storectl --help`.
        var listing: String { "  " + name.padding(toLength: 15, withPad: " ", startingAt: 0) + summary }

        /// `storectl COMMAND --help`.
        var help: String {
            "usage: storectl \(usage)\n\n\(summary)\nLOCATION: \(StoreLocation.acceptedForms); default from $DVP_STORE."
        }
    }

    static let commands: [Command] = [
        Command(
            name: "counts", usage: "counts [--store S]",
            summary: "Upsert outcome totals per metric and overall.", options: ["store"], run: Inspect.counts),
        Command(
            name: "show", usage: "show [--store S] PATIENT/METRIC/DAY",
            summary: "The stored FHIR Observation with meta.versionId and meta.lastUpdated.", options: ["store"],
            run: Inspect.show),
        Command(
            name: "dump", usage: "dump [--store S]",
            summary: "One line per identity, `PATIENT/METRIC/DAY<TAB>VERSION`, sorted.", options: ["store"],
            run: Inspect.dump),
        Command(
            name: "audit-install", usage: "audit-install [--store S]",
            summary: "Install a trigger logging every version update into version_audit.", options: ["store"],
            run: Audit.install),
        Command(
            name: "audit-check", usage: "audit-check [--store S]",
            summary: "Print the number of logged version decreases; exit 1 if any.", options: ["store"],
            run: Audit.check),
        Command(
            name: "_race", usage: RaceWriter.usage, summary: "Test helper: one concurrent writer of a race test.",
            options: RaceWriter.options, hidden: true, run: RaceWriter.run),
        Command(
            name: "_bench", usage: Bench.usage, summary: "Upsert throughput: inserts, replaces, duplicates.",
            options: Bench.options, hidden: true, run: Bench.run),
    ]

    static let overview = """
        usage: storectl COMMAND [--store LOCATION] [ARGS]

        Inspect and audit a daily-values observation store.
        LOCATION: \(StoreLocation.acceptedForms); default from $DVP_STORE.

        commands:
        \(commands.filter { !$0.hidden }.map(\.listing).joined(separator: "\n"))

        Run `storectl COMMAND --help` for a command's usage.
        """

    /// Runs the command line and returns the exit status.
    static func run(_ arguments: [String]) async -> Int32 {
        guard let name = arguments.first else {
            FileHandle.standardError.write(Data((overview + "\n").utf8))
            return 2
        }
        if name == "--help" || name == "-h" || name == "help" {
            print(overview)
            return 0
        }
        guard let command = commands.first(where: { $0.name == name }) else {
            return fail(2, "storectl: unknown command '\(name)'; run `storectl --help` for the commands")
        }
        do {
            let parsed = try Arguments(Array(arguments.dropFirst()), allowed: command.options)
            if parsed.wantsHelp {
                print(command.help)
                return 0
            }
            return try await command.run(parsed)
        } catch let error as UsageError {
            return fail(2, "storectl \(name): \(error.message)\nusage: storectl \(command.usage)")
        } catch {
            return fail(1, "storectl \(name): \(error)")
        }
    }

    static func fail(_ status: Int32, _ message: String) -> Int32 {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        return status
    }

    /// Opens the store named by the arguments, runs `body`, and closes the store on every path.
    static func withStore<Result>(
        _ arguments: Arguments, _ body: (any ObservationStore) async throws -> Result
    ) async throws -> Result {
        let store = try await makeObservationStore(
            try arguments.storeLocation(), postgres: PostgresClientOptions(applicationName: "dvp-storectl"))
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
