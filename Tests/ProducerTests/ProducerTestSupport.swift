import Foundation
import Kafka
import TestSupport

/// Helpers shared by the producer tests: the built `producer` binary, temporary files and mock clusters (child
/// processes, paths and clusters come from `TestSupport`).
enum ProducerTestSupport {
    /// The built `producer` (override with `PRODUCER_BINARY`, e.g. a release build for the benchmark).
    static var producerBinary: URL {
        if let path = ProcessInfo.processInfo.environment["PRODUCER_BINARY"] { return URL(fileURLWithPath: path) }
        return URL(fileURLWithPath: TestEnvironment.binary("producer"))
    }

    /// A fresh temporary directory, removed by the caller with ``removeDirectory(_:)``.
    static func makeDirectory() throws -> URL { try TestEnvironment.temporaryDirectory("producer-tests") }

    static func removeDirectory(_ url: URL) {
        try? FileManager.default.removeItem(at: url)
    }

    /// A one-broker-or-more mock cluster with one topic.
    static func cluster(topic: String, partitions: Int = 3, brokers: Int = 1) throws -> KafkaMockCluster {
        try TestBrokers.mockCluster(brokers: brokers, topics: [topic: partitions])
    }

    // MARK: - Child processes

    /// Runs `executable` to completion (without the test process's `DVP_*` variables).
    static func run(
        _ executable: URL, _ arguments: [String], stdin: URL? = nil, environment: [String: String] = [:]
    ) async throws -> ProcessResult {
        try await ChildProcess.run(
            executable.path, arguments, input: stdin.map { .file($0) } ?? .none, environment: environment,
            inheritsDVPVariables: false)
    }

    /// Runs the `producer` binary.
    static func producer(
        _ arguments: [String], stdin: URL? = nil, environment: [String: String] = [:]
    ) async throws -> ProcessResult {
        try await run(producerBinary, arguments, stdin: stdin, environment: environment)
    }

    /// Today minus `days` as `YYYY-MM-DD` (UTC), inside the decoder's day window.
    static func recentDay(daysAgo days: Int) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: Date().addingTimeInterval(-Double(days) * 86_400))
    }
}
