import CommandLineOptions
import Foundation
import MallocTuning
import WorkerCore

// The worker executable: set up malloc, parse configuration, wire signals to a graceful drain, run, exit.

MallocTuning.apply()

// Summaries go to stdout with `print`; logs are JSON lines on stderr.
let configuration = CommandLineTool.parseOrExit("worker", help: WorkerHelp.text) {
    try WorkerConfiguration.parse(Array(CommandLine.arguments.dropFirst()))
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
                logger.error("drain deadline exceeded; exiting without a clean close")
                exit(3)
            }
        } else {
            logger.error("second signal: exiting at once", [("signal", .string(SignalStream.name(sig)))])
            exit(3)
        }
    }
}

do {
    let summary = try await service.run()
    if configuration.untilCaughtUp { print(summary) }
    signals.cancel()
    exit(0)
} catch let error as WorkerError {
    logger.error("worker failed", [("error", .string(error.description))])
    FileHandle.standardError.write(Data("worker: \(error)\n".utf8))
    if case .configuration = error { exit(2) }
    exit(1)
} catch {
    logger.error("worker failed", [("error", .string("\(error)"))])
    exit(1)
}
