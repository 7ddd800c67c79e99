import CommandLineOptions
import Foundation

// dvp-test-tools: helpers the tests run as separate processes. Built with the package, never shipped (not a
// product, not in the image). Exit status: 0 success, 1 failure, 2 bad arguments.

/// One subcommand: its usage line, what it is for, its options and what it runs.
struct TestToolCommand {
    var usage: String
    var summary: String
    var parser: CommandLineParser
    var run: (ParsedCommandLine) async throws -> Int32

    var name: String { String(usage.prefix { $0 != " " }) }
}

let commands = [
    TestToolCommand(
        usage: RaceWriter.usage, summary: "one concurrent writer of the store race tests", parser: RaceWriter.parser,
        run: RaceWriter.run),
    TestToolCommand(
        usage: UpsertBench.usage, summary: "upsert throughput of a store: new rows, replaces, duplicates",
        parser: UpsertBench.parser, run: UpsertBench.run),
    TestToolCommand(
        usage: FHIRBench.usage,
        summary: "the FHIR store's throughput next to the same server's raw PUT and Bundle rates",
        parser: FHIRBench.parser, run: FHIRBench.run),
    TestToolCommand(
        usage: DocumentSamples.usage, summary: "the documents the stores compress, as dictionary training samples",
        parser: DocumentSamples.parser, run: DocumentSamples.run),
    TestToolCommand(
        usage: LifecycleProbe.usage, summary: "services in a ServiceGroup, stopped by SIGTERM/SIGINT (lifecycle tests)",
        parser: LifecycleProbe.parser, run: LifecycleProbe.run),
]

let usage =
    "usage: dvp-test-tools COMMAND [OPTIONS]\n\ncommands:\n"
    + commands.map { "  \($0.usage)\n      \($0.summary)" }.joined(separator: "\n")

var arguments = Array(CommandLine.arguments.dropFirst())
let name = arguments.isEmpty ? "" : arguments.removeFirst()
do {
    if ["help", "--help", "-h"].contains(name) {
        print(usage)
        exit(0)
    }
    guard let command = commands.first(where: { $0.name == name }) else {
        StandardError.print("dvp-test-tools: unknown command '\(name)'\n\n\(usage)")
        exit(UsageError.exitStatus)
    }
    let parsed = try command.parser.parse(arguments, environment: ProcessInfo.processInfo.environment)
    if parsed.wantsHelp {
        print(command.parser.helpText(header: "usage: dvp-test-tools \(command.usage)"))
        exit(0)
    }
    exit(try await command.run(parsed))
} catch let error as UsageError {
    StandardError.print("dvp-test-tools \(name): \(error)")
    exit(UsageError.exitStatus)
} catch {
    StandardError.print("dvp-test-tools \(name): \(error)")
    exit(1)
}
