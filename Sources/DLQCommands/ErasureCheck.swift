import CommandLineOptions
import ObservationStores
import StoreCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `dlq redrive`'s erasure check: the store the workers write and the key they hash persons with, so that the dead
/// letters of an erased or withdrawn person are dropped instead of sent back for the workers to refuse (or, on a
/// store that lost its ledger, to store again).
///
/// Without a store the redrive refuses to start (exit 2) unless `--no-erasure-check` says the operator knows no
/// person was erased: a production tool must not silently resurrect one.
enum ErasureCheck {
    static let options: [CommandLineOption] =
        ParsedCommandLine.storeLocationOptions(
            "--store",
            help: """
                the workers' store (env DVP_STORE, as the worker's; sqlite:PATH, postgres://…
                or fhir+https://… with the worker's --fhir-* flags):
                the dead letters of persons its erasure ledger refuses are dropped, never
                republished or quarantined (counted `erased`); required unless --no-erasure-check
                """)
        + ParsedCommandLine.erasureKeyOptions + [
            .flag(
                "--no-erasure-check", environment: "DVP_NO_ERASURE_CHECK",
                help: """
                    redrive without a store: no dead letter is dropped for an erased person (only
                    when no one was ever erased or withdrew; the workers still refuse their events)
                    """)
        ] + FHIRStoreOptions.options

    /// The ledger of the store `--store` names, read once (so a wrong key fails here, exit 2); nil with
    /// `--no-erasure-check`.
    /// - Throws: ``UsageError`` without either, with both, for a bad location or key, or a ledger under another
    ///   key; ``StoreError`` when the store cannot be opened or read.
    static func open(_ arguments: ParsedCommandLine) async throws -> ErasureLedgerReader? {
        if arguments.isSet("--no-erasure-check") {
            // A store from the environment (the workers' DVP_STORE, shared by a chart's Jobs) is not a contradiction.
            guard arguments.given("--store") == nil, arguments.given("--store-file") == nil else {
                throw UsageError(option: "--no-erasure-check", "--store and --no-erasure-check exclude each other")
            }
            return nil
        }
        let text = try arguments.storeLocationText("--store")
        guard let text else {
            throw UsageError(
                option: "--store",
                "no store to check erased persons against: give the workers' --store (or DVP_STORE, --store-file) "
                    + "and their id key, or --no-erasure-check when no person was ever erased or withdrew")
        }
        let location: StoreLocation
        do {
            location = try StoreLocation(parsing: text)
        } catch let error as StoreError {
            throw UsageError.invalid("--store", error.message)
        }
        if case .sqlite(let path) = location, !FileManager.default.fileExists(atPath: path) {
            // Opening would create an empty store, whose empty ledger would let every erased person through.
            throw UsageError.invalid("--store", "no SQLite store at that path (give the workers' store)")
        }
        let key = try erasureKey(arguments)
        let fhir = try FHIRStoreOptions.configuration(for: location, arguments)
        let store = try await makeObservationStore(location, fhir: fhir, erasureKey: key)
        do {
            let reader = try ErasureLedgerReader(store: store, key: key)
            try await reader.refresh()
            return reader
        } catch let error as StoreError where error.code == .usage {
            await store.close()
            throw UsageError(option: "--store", "--store: \(error.message)")
        } catch {
            await store.close()
            throw error
        }
    }

    /// The ledger's key as `storectl erase` takes it (`--erasure-key-file`, `--id-key-file`, `DVP_ID_KEY`,
    /// `--allow-development-key`); nil when none is given (enough while the ledger is empty).
    static func erasureKey(_ arguments: ParsedCommandLine) throws -> ErasureKey? {
        guard let bytes = try arguments.erasureKeyBytes() else { return nil }
        do {
            return try ErasureKey(key: bytes)
        } catch let error as StoreError {
            throw UsageError(option: "--id-key-file", "the erasure key: \(error.message)")
        }
    }
}
