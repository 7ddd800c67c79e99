import Foundation
import Kafka

/// Helpers shared by the producer tests: the built `producer` binary, child processes, temporary files and mock
/// clusters.
enum ProducerTestSupport {
    /// The `producer` executable built next to the test bundle (override with `PRODUCER_BINARY`).
    static var producerBinary: URL {
        if let path = ProcessInfo.processInfo.environment["PRODUCER_BINARY"] { return URL(fileURLWithPath: path) }
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("producer")
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return packageRoot.appendingPathComponent(".build/debug/producer")
    }

    /// A fresh temporary directory, removed by the caller with ``removeDirectory(_:)``.
    static func makeDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("producer-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func removeDirectory(_ url: URL) {
        try? FileManager.default.removeItem(at: url)
    }

    /// A one-broker-or-more mock cluster with one topic.
    static func cluster(topic: String, partitions: Int = 3, brokers: Int = 1) throws -> KafkaMockCluster {
        let cluster = try KafkaMockCluster(brokers: brokers)
        try cluster.createTopic(topic, partitions: partitions)
        return cluster
    }

    // MARK: - Child processes

    struct Completed {
        var status: Int32
        var stdout: Data
        var stderr: String
    }

    /// Runs `executable` to completion without blocking a cooperative thread; output goes through temporary files
    /// so large outputs cannot dead-lock on a pipe.
    static func run(
        _ executable: URL, _ arguments: [String], stdin: URL? = nil, environment: [String: String] = [:]
    ) async throws -> Completed {
        let directory = try makeDirectory()
        defer { removeDirectory(directory) }
        let outURL = directory.appendingPathComponent("stdout")
        let errURL = directory.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var processEnvironment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("DVP_") }
        processEnvironment.merge(environment) { $1 }
        process.environment = processEnvironment
        let outHandle = try FileHandle(forWritingTo: outURL)
        let errHandle = try FileHandle(forWritingTo: errURL)
        process.standardOutput = outHandle
        process.standardError = errHandle
        process.standardInput = try stdin.map { try FileHandle(forReadingFrom: $0) } ?? FileHandle.nullDevice
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        try outHandle.close()
        try errHandle.close()
        return Completed(
            status: status, stdout: try Data(contentsOf: outURL),
            stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self)
        )
    }

    /// Runs the `producer` binary.
    static func producer(
        _ arguments: [String], stdin: URL? = nil, environment: [String: String] = [:]
    ) async throws -> Completed {
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
