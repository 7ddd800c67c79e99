import CommandLineOptions
import Foundation

// dvp-test-tools: helpers the tests run as separate processes. Built with the package, never shipped (not a
// product, not in the image). Exit status: 0 success, 1 failure, 2 bad arguments.

let usage = """
    usage: dvp-test-tools COMMAND [OPTIONS]

    commands:
      \(RaceWriter.usage)
          one concurrent writer of the store race tests
      \(UpsertBench.usage)
          upsert throughput of a store: new rows, replaces, duplicates
      \(FHIRBench.usage)
          the FHIR store's throughput next to the same server's raw PUT and Bundle rates
    """

var arguments = Array(CommandLine.arguments.dropFirst())
let command = arguments.isEmpty ? "" : arguments.removeFirst()
do {
    switch command {
    case "race":
        let parsed = try RaceWriter.parser.parse(arguments, environment: ProcessInfo.processInfo.environment)
        if parsed.wantsHelp {
            print(RaceWriter.parser.helpText(header: "usage: dvp-test-tools \(RaceWriter.usage)"))
            exit(0)
        }
        exit(try await RaceWriter.run(parsed))
    case "upsert-bench":
        let parsed = try UpsertBench.parser.parse(arguments, environment: ProcessInfo.processInfo.environment)
        if parsed.wantsHelp {
            print(UpsertBench.parser.helpText(header: "usage: dvp-test-tools \(UpsertBench.usage)"))
            exit(0)
        }
        exit(try await UpsertBench.run(parsed))
    case "fhir-bench":
        let parsed = try FHIRBench.parser.parse(arguments, environment: ProcessInfo.processInfo.environment)
        if parsed.wantsHelp {
            print(FHIRBench.parser.helpText(header: "usage: dvp-test-tools \(FHIRBench.usage)"))
            exit(0)
        }
        exit(try await FHIRBench.run(parsed))
    case "help", "--help", "-h":
        print(usage)
        exit(0)
    default:
        StandardError.print("dvp-test-tools: unknown command '\(command)'\n\n\(usage)")
        exit(UsageError.exitStatus)
    }
} catch let error as UsageError {
    StandardError.print("dvp-test-tools \(command): \(error)")
    exit(UsageError.exitStatus)
} catch {
    StandardError.print("dvp-test-tools \(command): \(error)")
    exit(1)
}
