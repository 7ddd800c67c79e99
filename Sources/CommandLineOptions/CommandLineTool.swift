#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// The start of an executable's `main`: parse the command line, answer `--help`, turn a usage error into exit
/// status 2.
public enum CommandLineTool {
    /// Runs `parse`; prints `help` and exits 0 when it returns nil (`--help`); on an error prints
    /// `program: error` (and `usageHint`, e.g. the help, when given) on stderr and exits with
    /// ``UsageError/exitStatus``.
    /// - Returns: what `parse` returned.
    public static func parseOrExit<Options>(
        _ program: String, help: String, usageHint: String? = nil, _ parse: () throws -> Options?
    ) -> Options {
        do {
            guard let options = try parse() else {
                print(help)
                exit(0)
            }
            return options
        } catch {
            StandardError.print("\(program): \(error)" + (usageHint.map { "\n" + $0 } ?? ""))
            exit(UsageError.exitStatus)
        }
    }

    /// Answers `PROGRAM --print-options-json` (the flag alone): prints `parser`'s option table
    /// (``CommandLineParser/optionTableJSON(program:)``) and exits 0. Any other command line returns at once.
    public static func answerOptionTableRequest(_ arguments: [String], program: String, parser: CommandLineParser) {
        guard arguments == [CommandLineParser.printOptionTableFlag] else { return }
        print(parser.optionTableJSON(program: program))
        exit(0)
    }
}
