import CommandLineOptions
import Foundation
import MallocTuning
import WorkerCore

// The worker executable: set up malloc, parse configuration, wire signals to a graceful drain, run, exit.

MallocTuning.apply()

// Summaries and --help go to stdout with `print`; stderr carries JSON log lines only, the fatal exits included.
let configuration: WorkerConfiguration
do {
    guard let parsed = try WorkerConfiguration.parse(Array(CommandLine.arguments.dropFirst())) else {
        print(WorkerHelp.text)
        exit(0)
    }
    configuration = parsed
} catch {
    Logger(level: .error).error("worker failed", [("error", .string("\(error)")), ("exit_status", 2)])
    exit(UsageError.exitStatus)
}

let logger = Logger(level: configuration.logLevel, fields: [("worker_id", .string(configuration.workerID))])
let service = WorkerService(configuration: configuration, logger: logger)

let signals = Task {
    var received = 0
    for await sig in SignalStream.make() {
        received += 1
        if received == 1 {
            logger.info("stopping: finishing the in-flight batch, committing, leaving the group",
                        [("signal", .string(SignalStream.name(sig))),
                         ("drain_timeout_s", .double(configuration.drainTimeoutSeconds))])
            service.requestStop()
            // The one deadline: every stop step has its share of it; whatever still hangs then, the process ends.
            DispatchQueue.global().asyncAfter(deadline: .now() + configuration.drainTimeoutSeconds) {
                logger.error("drain deadline exceeded; exiting without a clean close", [("exit_status", 3)])
                exit(3)
            }
        } else {
            logger.error(
                "second signal: exiting at once", [("signal", .string(SignalStream.name(sig))), ("exit_status", 3)])
            exit(3)
        }
    }
}

do {
    let summary = try await service.run()
    if configuration.untilCaughtUp { print(summary) }
    signals.cancel()
    exit(0)
} catch {
    let status: Int32 = if case WorkerError.configuration = error { UsageError.exitStatus } else { 1 }
    logger.error("worker failed", [("error", .string("\(error)")), ("exit_status", .int(Int64(status)))])
    exit(status)
}
