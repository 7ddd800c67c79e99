import CommandLineOptions
import Foundation
import TestSupport
import Testing

@testable import IngestGateway
@testable import WorkerCore

/// Each declared option of the worker and the gateway against what the program does with it: the declared default is
/// what the program uses when the option is absent, every declared bound and choice is accepted and the values just
/// past them refused, and the help names the default. The chart is held to the same declarations
/// (scripts/chartoptions.py), so a change on one side only fails here or there.
@Suite("Declared options", .serialized, .timeLimit(.minutes(5)))
struct DeclaredOptionTests {
    /// One program's declarations and its configuration parser, as `path = value` lines or the refusal.
    struct Program: Sendable, CustomTestStringConvertible {
        var name: String
        var parser: CommandLineParser
        /// What every command line starts with (the required options).
        var base: @Sendable (_ option: String) throws -> [String]
        /// Options a value needs beside it (`--subject-reference logical` needs `--patient-identifier-system`).
        var companions: [String: [String]] = [:]
        var parse: @Sendable ([String]) -> Result<[String], Refusal>

        var testDescription: String { name }
    }

    /// Why a program refused a command line.
    struct Refusal: Error {
        var message: String
    }

    static let worker = Program(
        name: "worker", parser: WorkerOptions.parser,
        base: { _ in ["--brokers", "b:1", "--allow-development-key"] },
        companions: ["--subject-reference=logical": ["--patient-identifier-system", "urn:example:patients"]],
        parse: { arguments in
            do {
                guard let configuration = try WorkerConfiguration.parse(arguments, environment: [:]) else {
                    return .failure(Refusal(message: "--help"))
                }
                return .success(ConfigurationLines.of(configuration))
            } catch {
                return .failure(Refusal(message: "\(error)"))
            }
        })

    static let ingest = Program(
        name: "ingest", parser: IngestOptions.parser,
        base: { option in
            guard option.hasPrefix("--jwt-") else { return ["--brokers", "b:1", "--insecure-no-auth"] }
            // The JWT options need a readable JWKS file (read later, at start) with the audience and issuer.
            let jwks = FileManager.default.temporaryDirectory.appendingPathComponent("dvp-declared-jwks.json")
            try Data(#"{"keys": []}"#.utf8).write(to: jwks)
            return ["--brokers", "b:1", "--jwks", jwks.path, "--jwt-audience", "a", "--jwt-issuer", "i"]
        },
        companions: [
            "--max-body-bytes": ["--max-in-flight-bytes", "1099511627776"],
            "--max-in-flight-bytes": ["--max-body-bytes", "1024"],
            "--max-tenant-requests": ["--max-concurrent-requests", "65536"],
            "--max-tenant-in-flight-bytes": ["--max-body-bytes", "1024", "--max-in-flight-bytes", "1099511627776"],
        ],
        parse: { arguments in
            do {
                guard let configuration = try IngestConfiguration.parse(arguments, environment: [:]) else {
                    return .failure(Refusal(message: "--help"))
                }
                return .success(ConfigurationLines.of(configuration))
            } catch {
                return .failure(Refusal(message: "\(error)"))
            }
        })

    static let programs = [worker, ingest]

    /// The command line for `option` `value`, with what it needs beside it.
    static func arguments(_ program: Program, _ option: String, _ value: String) throws -> [String] {
        let companions = program.companions[option] ?? program.companions["\(option)=\(value)"] ?? []
        return try program.base(option) + companions + [option, value]
    }

    // MARK: - Defaults

    @Test(
        "Absent, every option with a declared default configures the program as its default given", arguments: programs)
    func defaults(_ program: Program) throws {
        var compared = 0
        for option in program.parser.options where option.kind != .flag {
            guard let value = option.defaultValue else { continue }
            let without = program.parse(try program.base(option.name) + (program.companions[option.name] ?? []))
            let with = program.parse(try Self.arguments(program, option.name, value))
            #expect(
                try with.get() == without.get(),
                "\(program.name) \(option.name): the declared default \(value) is not what the program uses without it")
            compared += 1
        }
        #expect(compared >= 15)
    }

    /// The integer options are parsed through their declarations (``ParsedCommandLine/declaredInteger(_:)``), so the
    /// configuration types' own initial values are a second copy: they must be the declared defaults too.
    @Test("The configuration types start from the declared integer defaults")
    func configurationDefaults() throws {
        func declared(_ parser: CommandLineParser, _ name: String) -> Int? {
            parser.options.first { $0.name == name }?.defaultValue.flatMap { Int($0) }
        }
        let worker = WorkerConfiguration(
            brokers: "b:1", dlqTopic: "d", idKey: [], usesDevelopmentIDKey: true, workerID: "w")
        let workerValues: [(String, Int)] = [
            ("--batch-size", worker.batchSize), ("--batch-ms", worker.batchMilliseconds),
            ("--http-port", worker.httpPort), ("--version-cache", worker.versionCacheSize),
        ]
        for (name, value) in workerValues {
            #expect(
                declared(WorkerOptions.parser, name) == value, "worker \(name): WorkerConfiguration starts at \(value)")
        }
        let ingest = IngestConfiguration(brokers: "b:1")
        let ingestValues: [(String, Int)] = [
            ("--http-port", ingest.httpPort), ("--admin-port", ingest.adminPort),
            ("--max-connections", ingest.maxConnections),
            ("--max-requests-per-connection", ingest.maxRequestsPerConnection),
            ("--max-connections-per-address", ingest.maxConnectionsPerAddress),
            ("--max-records", ingest.limits.maxRecords), ("--max-body-bytes", ingest.limits.maxBodyBytes),
            ("--max-concurrent-requests", ingest.limits.maxConcurrentRequests),
            ("--max-in-flight-bytes", ingest.limits.maxInFlightBytes),
            ("--min-body-rate", ingest.limits.minimumBodyRate), ("--idempotency-max-keys", ingest.idempotency.maxKeys),
            ("--idempotency-max-records", ingest.idempotency.maxRecords),
        ]
        for (name, value) in ingestValues {
            #expect(
                declared(IngestOptions.parser, name) == value, "ingest \(name): IngestConfiguration starts at \(value)")
        }
    }

    @Test("The help names each declared default", arguments: programs)
    func helpNamesDefault(_ program: Program) {
        for option in program.parser.options where option.kind != .flag && !option.isSecret {
            guard let value = option.defaultValue else { continue }
            let help = option.help.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(
                help.contains("default \(value)") || help.contains("\(value) (default"),
                "\(program.name) \(option.name): the help does not name the declared default \(value): \(help)")
        }
    }

    // MARK: - Bounds and choices

    @Test("Every declared bound and choice is accepted; the values just past them are refused", arguments: programs)
    func bounds(_ program: Program) throws {
        var checked = 0
        for option in program.parser.options {
            var accepted: [String] = []
            var refused: [String] = []
            switch option.valueType {
            case .integer(let range):
                accepted = [range.lowerBound, range.upperBound].map(String.init)
                refused =
                    [range.lowerBound.subtractingReportingOverflow(1), range.upperBound.addingReportingOverflow(1)]
                    .filter { !$0.overflow }.map { String($0.partialValue) } + ["1.5", "x"]
            case .number(let range, let exclusive):
                let low = exclusive ? range.lowerBound + 0.001 : range.lowerBound
                accepted = [low, range.upperBound].map { "\($0)" }
                refused =
                    [exclusive ? range.lowerBound : range.lowerBound - 0.001, range.upperBound + 0.001].map {
                        "\($0)"
                    } + ["x"]
            case .choice(let choices):
                accepted = choices
                // (--log-level also takes its names in any case, as it always has: a leniency the table need not state.)
                refused = ["not-a-choice"]
            case .string, .boolean:
                continue
            }
            checked += 1
            for value in accepted {
                let result = program.parse(try Self.arguments(program, option.name, value))
                #expect(
                    (try? result.get()) != nil,
                    "\(program.name) \(option.name) \(value) is declared acceptable, but refused: \(result)")
            }
            for value in refused {
                let result = program.parse(try Self.arguments(program, option.name, value))
                #expect(
                    (try? result.get()) == nil,
                    "\(program.name) \(option.name) \(value) is outside the declaration, but accepted")
                if case .failure(let refusal) = result {
                    #expect(
                        refusal.message.contains(option.name),
                        "\(program.name): the refusal does not name \(option.name)")
                }
            }
        }
        #expect(checked >= 10)
    }

    // MARK: - The printed table

    @Test("--print-options-json: the running program prints its declared options and exits 0", arguments: programs)
    func printedTable(_ program: Program) async throws {
        let result = try await runCommand(TestEnvironment.binary(program.name), ["--print-options-json"])
        #expect(result.status == 0, "\(result.stderr)")
        let table = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(table["program"] as? String == program.name)
        let printed = try #require(table["options"] as? [[String: Any]])
        let declared = program.parser.options.filter { $0.name != CommandLineOption.help.name }
        #expect(printed.compactMap { $0["name"] as? String } == declared.map(\.name))
        for (entry, option) in zip(printed, declared) where option.isSecret {
            #expect(entry["default"] is NSNull, "\(program.name) \(option.name): a secret's default is printed")
        }
        // Not a way around the parser: with anything else beside it, the flag is unknown.
        let mixed = try await runCommand(TestEnvironment.binary(program.name), ["--print-options-json", "--help"])
        #expect(mixed.status == 2)
    }
}
