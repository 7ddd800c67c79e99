import CommandLineOptions
import Foundation
import Testing

/// `--brokers` / `--brokers-file` and their twins: the one rule the worker, the gateway and `dlq` share.
@Suite struct BootstrapSourceTests {
    static let parser = CommandLineParser([
        .value("--brokers", "LIST", help: "servers").withEnvironmentTwin(),
        .value("--brokers-file", "PATH", help: "a file naming them").withEnvironmentTwin(),
    ])

    static func source(_ arguments: [String], _ environment: [String: String] = [:]) throws -> String {
        let parsed = try parser.parse(arguments, environment: environment)
        switch try parsed.bootstrapServers(parsingFile: { $0.isEmpty ? nil : "file:" + $0 }) {
        case .list(let list): return list
        case .file(let file): return file
        }
    }

    @Test("A flag wins over either twin; --brokers over --brokers-file; the file read and parsed")
    func precedence() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bs-\(UUID().uuidString)").path
        try Data("k:1".utf8).write(to: URL(fileURLWithPath: path))
        #expect(try Self.source(["--brokers", "a:1", "--brokers-file", path]) == "a:1")
        #expect(try Self.source(["--brokers-file", path], ["DVP_BROKERS": "env:1"]) == "file:k:1")
        #expect(try Self.source([], ["DVP_BROKERS": "env:1", "DVP_BROKERS_FILE": path]) == "env:1")
        #expect(try Self.source([], ["DVP_BROKERS_FILE": path]) == "file:k:1")
        #expect(throws: UsageError(option: "--brokers", "--brokers (or DVP_BROKERS, or --brokers-file) is required")) {
            try Self.source([])
        }
        #expect(throws: UsageError(option: "--brokers-file", "--brokers-file: cannot read '/nonexistent/x'")) {
            try Self.source(["--brokers-file", "/nonexistent/x"])
        }
        try Data().write(to: URL(fileURLWithPath: path))
        #expect(throws: UsageError(option: "--brokers-file", "--brokers-file: '\(path)' holds no bootstrap list")) {
            try Self.source(["--brokers-file", path])
        }
    }
}
