import CommandLineOptions
import Foundation
import Testing

/// One declaration per option gives the parser, the help, the typed values and the option table.
@Suite("Option table")
struct OptionTableTests {
    static let parser = CommandLineParser(sections: [
        .init(
            "Main",
            [
                .value("--batch-size", "N", help: "records per batch (default 1000)")
                    .typed(.integer(1...100_000), default: "1000").withEnvironmentTwin(),
                .value("--drain-timeout", "SECONDS", help: "the stop's deadline (default 30)")
                    .typed(.number(0...3600, exclusiveMinimum: true), default: "30"),
                .value("--start", "POSITION", help: "committed|earliest|latest")
                    .typed(.choice(["committed", "earliest", "latest"]), default: "committed"),
                .value("--password", "TEXT", help: "a \"quoted\"\nsecret").typed(.integer(0...9), default: "7")
                    .secret(),
                .flag("--until-caught-up", help: "exit once caught up"),
                .value("--internal", "X", help: "not in the help").hidden(),
            ])
    ])

    /// The option table, parsed, by option name.
    static func table() throws -> [String: [String: Any]] {
        let json = parser.optionTableJSON(program: "tool")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["program"] as? String == "tool")
        let options = try #require(object["options"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: options.map { ($0["name"] as! String, $0) })
    }

    @Test("The table states each option's type, bounds, enum, default and twin as JSON Schema would")
    func table() throws {
        let table = try Self.table()
        #expect(
            table.keys.sorted() == [
                "--batch-size", "--drain-timeout", "--internal", "--password", "--start",
                "--until-caught-up",
            ])
        let batch = try #require(table["--batch-size"])
        #expect(batch["type"] as? String == "integer")
        #expect(batch["minimum"] as? Int == 1 && batch["maximum"] as? Int == 100_000)
        #expect(batch["default"] as? Int == 1000)
        #expect(batch["environment"] as? String == "DVP_BATCH_SIZE")
        #expect(batch["section"] as? String == "Main")
        let drain = try #require(table["--drain-timeout"])
        #expect(drain["type"] as? String == "number")
        #expect(drain["exclusiveMinimum"] as? Int == 0 && drain["minimum"] == nil && drain["maximum"] as? Int == 3600)
        #expect(table["--start"]?["enum"] as? [String] == ["committed", "earliest", "latest"])
        #expect(table["--start"]?["default"] as? String == "committed")
        #expect(table["--until-caught-up"]?["type"] as? String == "boolean")
        #expect(table["--until-caught-up"]?["default"] as? Bool == false)
        #expect(table["--until-caught-up"]?["argument"] is NSNull)
        #expect(table["--internal"]?["hidden"] as? Bool == true)
        #expect(table["--password"]?["help"] as? String == "a \"quoted\"\nsecret")
    }

    @Test("A secret's default is never printed, in the table or in an error")
    func secrets() throws {
        let password = try #require(try Self.table()["--password"])
        #expect(password["secret"] as? Bool == true)
        #expect(password["default"] is NSNull)
        #expect(!Self.parser.optionTableJSON(program: "tool").contains("\"default\":7"))
        #expect {
            _ = try Self.parser.parse(["--password", "hunter2"]).integer("--password", in: 0...9)
        } throws: { error in
            "\(error)".contains("--password") && !"\(error)".contains("hunter2")
        }
        // Not a secret: the value is named, as before.
        #expect {
            _ = try Self.parser.parse(["--batch-size", "0"]).declaredInteger("--batch-size")
        } throws: { error in
            "\(error)" == "--batch-size: must be an integer in 1...100000, got '0'"
        }
    }

    @Test("A hidden option is parsed and in the table, not in --help")
    func hidden() throws {
        let help = Self.parser.helpText(header: "usage: tool")
        #expect(!help.contains("--internal"))
        #expect(help.contains("--batch-size N") && help.contains("--until-caught-up"))
        #expect(try Self.parser.parse(["--internal", "x"]).value("--internal") == "x")
    }

    @Test("Typed values come from the declaration: its range, its choices, its default when absent")
    func declaredValues() throws {
        #expect(try Self.parser.parse([]).declaredInteger("--batch-size") == 1000)
        #expect(try Self.parser.parse(["--batch-size", "100000"]).declaredInteger("--batch-size") == 100_000)
        #expect(
            try Self.parser.parse([], environment: ["DVP_BATCH_SIZE": "7"]).declaredInteger("--batch-size") == 7)
        #expect(throws: UsageError.self) {
            try Self.parser.parse(["--batch-size", "100001"]).declaredInteger("--batch-size")
        }
        #expect(try Self.parser.parse([]).declaredChoice("--start") == "committed")
        #expect(try Self.parser.parse(["--start", "latest"]).declaredChoice("--start") == "latest")
        #expect {
            _ = try Self.parser.parse(["--start", "newest"]).declaredChoice("--start")
        } throws: { error in
            "\(error)" == "--start: not one of committed, earliest, latest, got 'newest'"
        }
    }

    @Test(
        "accepts(_:) follows the type: integer and number bounds, an exclusive minimum, choices",
        arguments: [
            ("--batch-size", "1", true), ("--batch-size", "0", false), ("--batch-size", "1.5", false),
            ("--drain-timeout", "0", false), ("--drain-timeout", "0.01", true), ("--drain-timeout", "3600", true),
            ("--drain-timeout", "3600.5", false), ("--start", "earliest", true), ("--start", "Earliest", false),
        ])
    func accepts(_ name: String, _ value: String, _ accepted: Bool) throws {
        let option = try #require(Self.parser.options.first { $0.name == name })
        #expect(option.accepts(value) == accepted)
    }
}
