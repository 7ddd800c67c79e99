import CommandLineOptions
import Testing

/// The multi-command dispatch `storectl` and `dlq` share: exit statuses for help, usage errors and failures.
@Suite("Command-line subcommands")
struct CommandLineSubcommandTests {
    struct Boom: Error {}

    static let commands = [
        CommandLineSubcommand(
            name: "ok", usage: "ok [--n N]", summary: "returns N",
            options: [.value("--n", "N", environment: "T_N", help: "the status")],
            run: { parsed in Int32(try parsed.integer("--n", in: 0...9) ?? 0) }),
        CommandLineSubcommand(name: "boom", usage: "boom", summary: "throws", options: [], run: { _ in throw Boom() }),
    ]

    static func dispatch(_ arguments: [String], environment: [String: String] = [:]) async -> Int32 {
        await CommandLineSubcommand.dispatch(
            program: "t", arguments, commands: commands, overview: "usage: t COMMAND", environment: environment,
            failureStatus: { $0 is Boom ? 3 : 1 })
    }

    @Test func statuses() async {
        #expect(await Self.dispatch(["ok", "--n", "4"]) == 4)
        #expect(await Self.dispatch(["ok"], environment: ["T_N": "5"]) == 5, "environment twin")
        #expect(await Self.dispatch(["ok", "--n", "4", "--n", "5"]) == 2, "an option given twice")
        #expect(await Self.dispatch(["ok", "--n", "x"]) == 2)
        #expect(await Self.dispatch(["ok", "extra"]) == 2, "no positionals unless allowed")
        #expect(await Self.dispatch(["nope"]) == 2)
        #expect(await Self.dispatch([]) == 2)
        #expect(await Self.dispatch(["--help"]) == 0)
        #expect(await Self.dispatch(["ok", "--help"]) == 0)
        #expect(await Self.dispatch(["boom"]) == 3, "the tool's failure status")
    }

    @Test func helpListsTheOptionsAndFooter() {
        var command = Self.commands[0]
        command.footer = "FOOTER"
        let help = command.help(program: "t")
        #expect(help.hasPrefix("usage: t ok [--n N]\n\nreturns N"))
        #expect(help.contains("--n N") && help.hasSuffix("FOOTER"))
        #expect(command.listing(width: 4) == "  ok  returns N")
    }
}
