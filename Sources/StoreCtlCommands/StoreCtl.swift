import CommandLineOptions
import ObservationStores
import PostgresClient
import StoreCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The `storectl` commands and their dispatch.
package enum StoreCtl {
    /// `storectl COMMAND --help`'s footer.
    static let footer = "LOCATION: \(StoreLocation.acceptedForms); default from $DVP_STORE."

    /// A storectl command: the store options unless given, positional arguments allowed.
    static func command(
        name: String, usage: String, summary: String, options: [CommandLineOption] = ParsedCommandLine.storeOptions,
        run: @escaping @Sendable (ParsedCommandLine) async throws -> Int32
    ) -> CommandLineSubcommand {
        CommandLineSubcommand(
            name: name, usage: usage, summary: summary, options: options, footer: footer, allowsPositionals: true,
            run: run)
    }

    static let commands: [CommandLineSubcommand] = [
        command(
            name: "counts", usage: "counts [--store S]",
            summary: "Upsert outcome totals per metric and overall.", run: Inspect.counts),
        command(
            name: "show", usage: "show [--store S] PATIENT/METRIC/DAY",
            summary: "The stored FHIR Observation with meta.versionId and meta.lastUpdated.",
            run: Inspect.show),
        command(
            name: "dump", usage: "dump [--store S]",
            summary: "One line per identity, `PATIENT/METRIC/DAY<TAB>VERSION`, sorted.",
            run: Inspect.dump),
        command(
            name: "sizes", usage: "sizes [--store S]",
            summary: "Stored resource sizes (compact JSON bytes) per metric and overall: count, average, max.",
            run: Inspect.sizes),
        command(
            name: "finalize", usage: "finalize [--store S] [--settle-hours H]",
            summary: "Flip preliminary days past their local end plus H hours to final (meta.versionId + 1).",
            options: ParsedCommandLine.storeOptions + [Finalize.settleOption], run: Finalize.run),
        command(
            name: "migrate", usage: "migrate [--store S] [--batch N]",
            summary: "Rewrite rows of an older schema into the current shape, online, in batches (resumable).",
            options: ParsedCommandLine.storeOptions + [Migrate.batchOption], run: Migrate.run),
        command(
            name: "export", usage: "export [--store S] --out DIR [--max-file-bytes N] [--since MANIFEST]",
            summary: "Observations as NDJSON files with a manifest, for a FHIR platform's bulk import; incremental.",
            options: Export.options, run: Export.run),
        command(
            name: "retention", usage: "retention [--store S] --keep-days N [--dry-run]",
            summary: "Drop the months (PostgreSQL partitions) wholly older than N days; later events of them expire.",
            options: Retention.options, run: Retention.run),
        command(
            name: "erase",
            usage: """
                erase [--store S] --patient ID [--patient ID …] [--patient-file FILE] --reference TEXT \
                [--mode erase|withdraw|lift] [--dry-run] [--reapply-ledger FILE]
                """,
            summary: "Erase persons, or record their consent withdrawal (lift ends it); exit 1 if something remains.",
            options: Erase.options, run: Erase.run),
        command(
            name: "erasures", usage: "erasures [--store S] [--json]",
            summary: "The erasure ledger (no patient ids); --json for erase --reapply-ledger after a restore.",
            options: Erasures.options, run: Erasures.run),
        command(
            name: "audit-install", usage: "audit-install [--store S]",
            summary: "Install a trigger logging every version update into version_audit.",
            run: Audit.install),
        command(
            name: "audit-check", usage: "audit-check [--store S]",
            summary: "Print the number of logged version decreases; exit 1 if any.",
            run: Audit.check),
    ]

    static let overview = """
        usage: storectl COMMAND [--store LOCATION] [ARGS]

        Inspect and audit a daily-values observation store.
        LOCATION: \(StoreLocation.acceptedForms); default from $DVP_STORE.

        commands:
        \(commands.map { $0.listing(width: 15) }.joined(separator: "\n"))

        Run `storectl COMMAND --help` for a command's usage.
        """

    /// Runs the command line and returns the exit status.
    package static func run(_ arguments: [String]) async -> Int32 {
        await CommandLineSubcommand.dispatch(program: "storectl", arguments, commands: commands, overview: overview)
    }

    static func fail(_ status: Int32, _ message: String) -> Int32 {
        StandardError.print(message)
        return status
    }

    /// Opens the store named by the arguments, runs `body`, and closes the store on every path.
    static func withStore<Result>(
        _ arguments: ParsedCommandLine, _ body: (any ObservationStore) async throws -> Result
    ) async throws -> Result {
        let location = try arguments.storeLocation()
        let store = try await makeObservationStore(
            location, postgres: PostgresClientOptions(applicationName: "dvp-storectl"),
            fhir: try FHIRStoreOptions.configuration(for: location, arguments))
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
