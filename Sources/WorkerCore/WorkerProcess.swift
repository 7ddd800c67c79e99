import CommandLineOptions
import Essentials
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

/// The worker process from arguments to exit status: parse the configuration, run the worker in a ``ServiceGroup``
/// (SIGTERM/SIGINT to a graceful drain under one deadline; that deadline or a second signal exits 3), exit.
/// `main.swift` of the shipped `worker` calls it with no fault hooks; the reliability suite's test worker with its
/// own.
///
/// Exit status: 0 stopped cleanly (or caught up); 1 a fatal dependency failure; 2 a configuration error;
/// 3 the drain deadline passed or a second signal; 4 the store refused the work in a way retrying cannot fix
/// (``WorkerError/storeExitStatus``).
public enum WorkerProcess {
    /// Runs the worker with `arguments` (without the program name) and exits.
    public static func run(_ arguments: [String], faults: WorkerFaults = .none) async -> Never {
        CommandLineTool.answerOptionTableRequest(arguments, program: "worker", parser: WorkerOptions.parser)
        // First of all: from here on SIGTERM/SIGINT never take their default action (exit 143 with nothing
        // logged). A signal that arrives while the configuration is read waits in the stream and stops the service
        // as soon as it exists.
        let signalStream = await SignalStream.make()
        // Each Kafka broker, database connection and scrape holds a descriptor; a soft limit of 1,024 is not meant
        // for servers.
        OpenFileLimit.raiseToHard()
        faults.beforeConfiguration()
        // Summaries and --help go to stdout with `print`; stderr carries JSON log lines only, the fatal exits too.
        let configuration = ServiceProcess.configuration("worker", help: WorkerHelp.text) {
            try WorkerConfiguration.parse(arguments)
        }
        let logger = Logger(level: configuration.logLevel, fields: [("worker_id", .string(configuration.workerID))])
        let service = WorkerService(configuration: configuration, logger: logger, faults: faults)
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [WorkerLifecycleService(service: service, printsSummary: configuration.untilCaughtUp)],
                signals: signalStream, gracefulShutdownTimeout: .seconds(configuration.drainTimeoutSeconds),
                logger: logger, stopMessage: "stopping: finishing the in-flight batch, committing, leaving the group"))
        await ServiceProcess.runAndExit(group, program: "worker", logger: logger, exitStatus: exitStatus(for:))
    }

    /// The exit status for an error `WorkerService.run()` threw.
    static func exitStatus(for error: any Error) -> Int32 {
        switch error {
        case WorkerError.configuration: ServiceExitStatus.configuration
        case WorkerError.store: WorkerError.storeExitStatus
        default: ServiceExitStatus.failure
        }
    }
}
