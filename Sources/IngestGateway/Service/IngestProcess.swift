import CommandLineOptions
import Essentials
import IngestAuth
import Kafka
import Observability
import ServiceLifecycle

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
    /// Runs the gateway with `arguments` (without the program name) and exits.
    public static func run(_ arguments: [String]) async -> Never {
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
        let service: IngestService
        do {
            service = try IngestService(
                configuration: configuration, authentication: authentication, logger: logger, metrics: metrics)
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

    /// A configuration error (the catalog, a librdkafka property) is 2; anything else that stops the start is 1.
    static func exitStatus(for error: any Error) -> Int32 {
        switch error {
        case is IngestConfigurationError: UsageError.exitStatus
        case let error as KafkaError where error.kind == .configuration: UsageError.exitStatus
        default: 1
        }
    }
}
