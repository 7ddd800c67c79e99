import CommandLineOptions
import Testing

@Suite("Command-line parser")
struct CommandLineParserTests {
    static let parser = CommandLineParser(
        [
            .value("--batch-size", "N", environment: "DVP_BATCH_SIZE", help: "records per batch"),
            .value("--brokers", "LIST", aliases: ["-b"], help: "bootstrap servers"),
            .value("-X", "key=value", repeatable: true, help: "pass-through property"),
            .flag("--until-caught-up", environment: "DVP_UNTIL_CAUGHT_UP", help: "exit once caught up"),
        ], allowsPositionals: true)

    @Test("--name value, --name=value, short aliases with the value attached or separate, repeatable, positionals")
    func forms() throws {
        let parsed = try Self.parser.parse(
            ["--batch-size", "7", "--brokers=a:1", "-Xa=1", "-X", "b=2", "file", "-", "--", "--batch-size"])
        #expect(parsed.value("--batch-size") == "7")
        #expect(parsed.value("--brokers") == "a:1")
        #expect(parsed.all("-X") == ["a=1", "b=2"])
        #expect(parsed.positionals == ["file", "-", "--batch-size"])
        #expect(try Self.parser.parse(["-b", "c:2"]).value("--brokers") == "c:2")
        #expect(try Self.parser.parse(["-bc:3"]).value("--brokers") == "c:3")
        #expect(try Self.parser.parse(["--brokers", "x", "--brokers", "y"]).value("--brokers") == "y")
    }

    @Test("Flags win over their environment twins; empty variables count as unset; switches read 1/true/yes")
    func environmentTwins() throws {
        let environment = ["DVP_BATCH_SIZE": "40", "DVP_UNTIL_CAUGHT_UP": "TRUE", "DVP_X_SASL_PASSWORD": "s"]
        let fromEnvironment = try Self.parser.parse([], environment: environment)
        #expect(fromEnvironment.value("--batch-size") == "40")
        #expect(fromEnvironment.given("--batch-size") == nil)
        #expect(fromEnvironment.isSet("--until-caught-up"))
        #expect(fromEnvironment.environmentProperties(prefix: "DVP_X_") == ["sasl.password": "s"])
        #expect(try Self.parser.parse(["--batch-size", "3"], environment: environment).value("--batch-size") == "3")
        #expect(try Self.parser.parse([], environment: ["DVP_BATCH_SIZE": ""]).value("--batch-size") == nil)
        #expect(try !Self.parser.parse([], environment: ["DVP_UNTIL_CAUGHT_UP": "no"]).isSet("--until-caught-up"))
        #expect(CommandLineOption.environmentTwin(of: "--batch-ms") == "DVP_BATCH_MS")
    }

    @Test(
        "Usage errors name the option",
        arguments: [
            (["--frobnicate"], "--frobnicate"), (["--brokers"], "--brokers"), (["-X"], "-X"),
            (["--until-caught-up=yes"], "--until-caught-up"), (["--batch-size", "0"], "--batch-size"),
            (["-q"], "-q"),
        ])
    func usageErrors(arguments: [String], option: String) {
        #expect {
            _ = try Self.parser.parse(arguments).integer("--batch-size", in: 1...10)
        } throws: { error in
            (error as? UsageError)?.option == option && "\(error)".contains(option)
        }
        #expect(UsageError.exitStatus == 2)
    }

    @Test("A positional that starts with '-' (a patient id '-p1') goes after '--'; the error says so")
    func dashedPositionals() throws {
        let error = #expect(throws: UsageError.self) { try Self.parser.parse(["-p1"]) }
        #expect(error?.option == "-p1" && "\(error!)".contains("goes after '--'"), "\(String(describing: error))")
        #expect(try Self.parser.parse(["--brokers", "a:1", "--", "-p1"]).positionals == ["-p1"])
    }

    @Test("Positional arguments, and repeats when rejected, are usage errors")
    func strictness() throws {
        let strict = CommandLineParser([.value("--store", "S", help: "store")], repeats: .rejected)
        #expect(throws: UsageError.self) { try strict.parse(["stray"]) }
        #expect(throws: UsageError.self) { try strict.parse(["--store", "a", "--store=b"]) }
        #expect(try strict.parse(["-h"]).wantsHelp)
    }

    @Test("The help lists every option with its argument, aliases and indented continuation lines")
    func help() {
        let parser = CommandLineParser(sections: [
            .init("Kafka", [.value("--brokers", "LIST", aliases: ["-b"], help: "servers\nmore")])
        ])
        let text = parser.helpText(header: "usage: tool", footer: "EXIT STATUS: 2 on a usage error")
        #expect(
            text == """
                usage: tool

                Kafka
                  -b, --brokers LIST        servers
                                            more

                EXIT STATUS: 2 on a usage error
                """)
    }
}
