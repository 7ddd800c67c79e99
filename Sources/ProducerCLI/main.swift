import CommandLineOptions
import DailyValueContract
import Kafka
import Producer

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

// `producer`: publish DailyValue events to Kafka, or generate a synthetic population. Parses the command line,
// wires the library parts together and maps errors to exit statuses (1 = some events failed, 2 = usage).

let usage = """
    Usage: producer <command> [options]

    Commands:
      publish [FILE…]   validate DailyValue JSON events and publish them to Kafka
      generate          write a deterministic synthetic population (to a file or to Kafka)
      schema            print the JSON Schema of the DailyValue v1 event (from the metric catalog)
      help [COMMAND]    show this text or a command's help

    Run `producer <command> --help` for the options of a command.
    """

let environment = ProcessInfo.processInfo.environment
var arguments = Array(CommandLine.arguments.dropFirst())
let command = arguments.isEmpty ? "help" : arguments.removeFirst()

do {
    switch command {
    case "publish":
        let options = try PublishOptions(arguments: arguments, environment: environment)
        if options.help {
            print(PublishOptions.help)
            exit(0)
        }
        exit(try await PublishCommand(options: options).run())
    case "generate":
        let options = try GenerateOptions(arguments: arguments, environment: environment)
        if options.help {
            print(GenerateOptions.help)
            exit(0)
        }
        exit(try await GenerateCommand(options: options).run())
    case "schema":
        let command = try SchemaCommand(arguments: arguments, environment: environment)
        print(command.help ? SchemaCommand.help : try command.run(), terminator: command.help ? "\n" : "")
        exit(0)
    case "help", "--help", "-h":
        switch arguments.first {
        case "publish": print(PublishOptions.help)
        case "generate": print(GenerateOptions.help)
        case "schema": print(SchemaCommand.help)
        default: print(usage)
        }
        exit(0)
    default:
        StandardError.print("producer: unknown command '\(command)'\n\n\(usage)")
        exit(UsageError.exitStatus)
    }
} catch let error as UsageError {
    StandardError.print("producer \(command): \(error)")
    exit(UsageError.exitStatus)
} catch let error as MetricCatalogError {
    StandardError.print("producer \(command): \(error)")
    exit(UsageError.exitStatus)
} catch let error as ProducerConfigurationError {
    StandardError.print("producer \(command): \(error)")
    exit(UsageError.exitStatus)
} catch let error as KafkaError {
    StandardError.print("producer \(command): \(error)")
    exit(2)
} catch {
    StandardError.print("producer \(command): \(error)")
    exit(1)
}
