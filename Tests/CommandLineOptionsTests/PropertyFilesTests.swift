import CommandLineOptions
import Foundation
import Testing

/// `DVP_XFILE_<PROPERTY>=PATH` (every tool that talks to Kafka) and an option's `key=PATH`: secret librdkafka
/// properties read from files; errors name the property and the path, never the contents.
@Suite("Kafka properties from files")
struct PropertyFilesTests {
    static let parser = CommandLineParser([
        .value("-X", "key=value", repeatable: true, help: "pass-through property"),
        .value("--kafka-property-file", "KEY=PATH", repeatable: true, help: "a property read from a file"),
    ])

    static func file(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("prop-\(UUID().uuidString)").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("The environment twin and the option read the file without its trailing line break; the option wins")
    func readsFiles() throws {
        let a = try Self.file("SECRETPW-A\r\n")
        let b = try Self.file("SECRETPW-B\n")
        let parsed = try Self.parser.parse(
            ["--kafka-property-file", "sasl.password=\(b)"],
            environment: ["DVP_XFILE_SASL_PASSWORD": a, "DVP_XFILE_SSL_KEY_PASSWORD": a])
        let merged = try parsed.kafkaPropertyFiles(adding: ["client.id": "x"], option: "--kafka-property-file")
        #expect(merged == ["client.id": "x", "sasl.password": "SECRETPW-B", "ssl.key.password": "SECRETPW-A"])
        #expect(try parsed.kafkaPropertyFiles(adding: [:])["sasl.password"] == "SECRETPW-A")
    }

    @Test("A property given twice, a missing and an empty file are refused without their contents")
    func refusals() throws {
        let secret = try Self.file("SECRETPW")
        let empty = try Self.file("\n")
        let cases: [([String: String], [String: String])] = [
            (["DVP_XFILE_SASL_PASSWORD": secret], ["sasl.password": "SECRETPW"]),
            (["DVP_XFILE_SASL_PASSWORD": "/nonexistent/SECRETPW"], [:]),
            (["DVP_XFILE_SASL_PASSWORD": empty], [:]),
        ]
        for (environment, values) in cases {
            let parsed = try Self.parser.parse([], environment: environment)
            do {
                _ = try parsed.kafkaPropertyFiles(adding: values)
                Issue.record("accepted \(environment.keys)")
            } catch let error as UsageError {
                #expect(error.message.contains("sasl.password"))
                #expect(!error.message.contains("SECRETPW") || error.message.contains("/nonexistent/SECRETPW"))
            }
        }
    }
}
