import Essentials

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One command of a multi-command tool (`storectl counts`, `dlq redrive`): its options, help and body.
public struct CommandLineSubcommand: Sendable {
    public var name: String
    /// The usage line after the program name, e.g. `show [--store S] PATIENT/METRIC/DAY`.
    public var usage: String
    /// One sentence for the tool's overview and the command's help.
    public var summary: String
    public var options: [CommandLineOption]
    /// Text under the command's option list (e.g. accepted forms, exit statuses).
    public var footer: String?
    public var allowsPositionals: Bool
    /// Runs the command; returns the exit status.
    public var run: @Sendable (ParsedCommandLine) async throws -> Int32

    public init(
        name: String, usage: String, summary: String, options: [CommandLineOption], footer: String? = nil,
        allowsPositionals: Bool = false, run: @escaping @Sendable (ParsedCommandLine) async throws -> Int32
    ) {
        self.name = name
        self.usage = usage
        self.summary = summary
        self.options = options
        self.footer = footer
        self.allowsPositionals = allowsPositionals
        self.run = run
    }

    /// The command's parser: its options, an option given twice rejected.
    public var parser: CommandLineParser {
        CommandLineParser(options, allowsPositionals: allowsPositionals, repeats: .rejected)
    }

    /// The command's line in the tool's overview.
    public func listing(width: Int) -> String {
        "  " + name.padded(to: width) + summary
    }

    /// `PROGRAM COMMAND --help`, generated from the command's options.
    public func help(program: String) -> String {
        parser.helpText(header: "usage: \(program) \(usage)\n\n\(summary)", footer: footer)
    }

    /// Runs `arguments` (`COMMAND [OPTIONS]`) against `commands` and returns the exit status: the overview for
    /// `--help`, ``UsageError/exitStatus`` for an unknown command or bad options, `failureStatus(error)` when the
    /// command throws anything else (its message on stderr).
    public static func dispatch(
        program: String, _ arguments: [String], commands: [CommandLineSubcommand], overview: String,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        failureStatus: (any Error) -> Int32 = { _ in 1 }
    ) async -> Int32 {
        guard let name = arguments.first else {
            StandardError.print(overview)
            return UsageError.exitStatus
        }
        if ["--help", "-h", "help"].contains(name) {
            print(overview)
            return 0
        }
        guard let command = commands.first(where: { $0.name == name }) else {
            StandardError.print("\(program): unknown command '\(name)'; run `\(program) --help` for the commands")
            return UsageError.exitStatus
        }
        do {
            let parsed = try command.parser.parse(Array(arguments.dropFirst()), environment: environment)
            if parsed.wantsHelp {
                print(command.help(program: program))
                return 0
            }
            return try await command.run(parsed)
        } catch let error as UsageError {
            StandardError.print("\(program) \(name): \(error.message)\nusage: \(program) \(command.usage)")
            return UsageError.exitStatus
        } catch {
            StandardError.print("\(program) \(name): \(error)")
            return failureStatus(error)
        }
    }
}
