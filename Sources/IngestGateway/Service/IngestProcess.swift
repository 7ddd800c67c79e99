import CommandLineOptions
import Essentials
import IngestAuth
import Kafka
import Observability
import ServiceLifecycle
import StoreCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// The `ingest` process from arguments to exit status: parse the configuration, build the verifiers, start the
/// service, run it in a ``ServiceGroup`` (SIGTERM/SIGINT to its graceful stop under one deadline), exit.
///
/// Exit status: 0 stopped cleanly; 1 a failure to start (e.g. the address is in use); 2 a configuration error;
/// 3 the drain deadline passed or a second signal came.
public enum IngestProcess {
    /// Opens the store at a location (`--erasure-store`): the `ingest` executable passes ObservationStores' opener,
    /// so this library never links a store's SQL itself.
    public typealias StoreOpener = @Sendable (StoreLocation) async throws -> any ObservationStore

    /// Runs the gateway with `arguments` (without the program name) and exits.
    public static func run(_ arguments: [String], openStore: StoreOpener) async -> Never {
        CommandLineTool.answerOptionTableRequest(arguments, program: "ingest", parser: IngestOptions.parser)
        // First of all: SIGTERM/SIGINT never take their default action from here on (exit 143 with nothing
        // logged); a signal that arrives while starting waits in the stream and stops the service once it exists.
        let signalStream = await SignalStream.make()
        let configuration = ServiceProcess.configuration("ingest", help: IngestHelp.text) {
            try IngestConfiguration.parse(arguments)
        }
        let logger = Logger(level: configuration.logLevel, fields: [("service", "ingest")])
        // Every connection is a descriptor, and so is each one lingering after an early answer.
        if let openFiles = OpenFileLimit.raiseToHard(),
            openFiles < configuration.maxConnections + OpenFileLimit.headroom
        {
            logger.warning(
                "the open-file limit is too low for --max-connections: connections past it fail (EMFILE); raise the "
                    + "hard limit (ulimit -Hn) or lower --max-connections",
                [
                    ("open_file_limit", .int(Int64(openFiles))),
                    ("max_connections", .int(Int64(configuration.maxConnections))),
                    ("headroom", .int(Int64(OpenFileLimit.headroom))),
                ])
        }
        let metrics = Metrics.ingest()
        let authentication: IngestAuthentication
        do {
            authentication = try IngestAuthentication.make(configuration.authentication) { reload in
                switch reload {
                case .loaded(path: let path, entries: let entries):
                    metrics.increment(.ingestCredentialReloads, label: "loaded")
                    logger.info("credentials re-read", [("file", .string(path)), ("entries", .int(Int64(entries)))])
                case .failed(let error):
                    metrics.increment(.ingestCredentialReloads, label: "refused")
                    logger.error(
                        "a changed credential file is refused; the previous one stays in use",
                        [("error", .string("\(error)"))])
                }
            }
        } catch {
            logger.error("ingest failed", [("error", .string("\(error)")), ("exit_status", 2)])
            exit(UsageError.exitStatus)
        }
        let erasure = await erasureLedger(configuration.erasure, openStore, metrics: metrics, logger: logger)
        let service: IngestService
        do {
            service = try IngestService(
                configuration: configuration, authentication: authentication, logger: logger, metrics: metrics,
                erasure: erasure)
        } catch {
            let status = exitStatus(for: error)
            logger.error(
                "ingest failed to start", [("error", .string("\(error)")), ("exit_status", .int(Int64(status)))])
            exit(status)
        }
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [IngestLifecycleService(service: service)], signals: signalStream,
                gracefulShutdownTimeout: configuration.drainTimeout, logger: logger, stopMessage: "stop requested"))
        await ServiceProcess.runAndExit(group, program: "ingest", logger: logger, exitStatus: exitStatus(for:))
    }

    /// The erasure ledger of `--erasure-store`, read once before serving: a ledger under another key (or with
    /// entries and no key) exits 2, a store that cannot be opened or read exits 1 (the gateway does not serve
    /// unchecked requests); nil without the option.
    static func erasureLedger(
        _ settings: IngestConfiguration.Erasure?, _ openStore: StoreOpener, metrics: Metrics, logger: Logger
    ) async -> IngestErasureLedger? {
        guard let settings else { return nil }
        do {
            if case .sqlite(let path) = settings.location, !FileManager.default.fileExists(atPath: path) {
                throw StoreError(.usage, "--erasure-store: no SQLite store at that path (the workers' store)")
            }
            let store = try await openStore(settings.location)
            let reader: ErasureLedgerReader
            do {
                reader = try ErasureLedgerReader(store: store, key: settings.key)
                try await reader.refresh()
            } catch {
                await store.close()
                throw error
            }
            let ledger = IngestErasureLedger(
                reader: reader, refreshInterval: settings.refreshInterval, metrics: metrics, logger: logger)
            await ledger.refresh()
            logger.info("erasure ledger read", [("store", .string(settings.location.description))])
            return ledger
        } catch {
            let status: Int32 = (error as? StoreError)?.code == .usage ? UsageError.exitStatus : 1
            logger.error(
                "ingest failed to read the erasure ledger (--erasure-store)",
                [("error", .string("\(error)")), ("exit_status", .int(Int64(status)))])
            exit(status)
        }
    }

    /// A configuration error (the catalog, a librdkafka property) is 2; anything else that stops the start is 1.
    static func exitStatus(for error: any Error) -> Int32 {
        switch error {
        case is IngestConfigurationError: UsageError.exitStatus
        case let error as KafkaError where error.kind == .configuration: UsageError.exitStatus
        default: 1
        }
    }
}
