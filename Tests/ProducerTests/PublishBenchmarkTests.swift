import Foundation
import Kafka
import TestSupport
import Testing

/// Opt-in throughput check: `DVP_BENCHMARK_EVENTS=1000000 PRODUCER_BINARY=.build/release/producer swift test
/// --filter PublishBenchmark`. Generates the events with the binary, publishes them to an in-process mock cluster
/// and prints the producer's summary.
@Suite(.serialized)
struct PublishBenchmarkTests {
    static let events = ProcessInfo.processInfo.environment["DVP_BENCHMARK_EVENTS"].flatMap(Int.init)

    @Test(.enabled(if: events != nil), .timeLimit(.minutes(10)))
    func publishManyEvents() async throws {
        let events = try #require(Self.events)
        let directory = try ProducerTestSupport.makeDirectory()
        defer { ProducerTestSupport.removeDirectory(directory) }
        let file = directory.appendingPathComponent("events.jsonl")
        let metrics = "steps,heart_rate,resting_heart_rate,oxygen_saturation,active_energy_burned"
        let patients = max(1, events / 5 / 10)
        let generate = try await ProducerTestSupport.producer(
            [
                "generate", "--patients", String(patients), "--days", "10", "--metrics", metrics, "--seed", "1",
                "--out", file.path,
            ])
        #expect(generate.status == 0, "\(generate.stderr)")
        let cluster = try ProducerTestSupport.cluster(topic: "daily-values", partitions: 6)

        let started = ContinuousClock.now
        let publish = try await ProducerTestSupport.producer(
            ["publish", "--brokers", cluster.bootstrapServers, file.path])
        let elapsed = ContinuousClock.now - started

        #expect(publish.status == 0, "\(publish.stderr.suffix(2_000))")
        print("generate: \(generate.stderr.split(separator: "\n").last ?? "")")
        print("publish (\(elapsed)): \(publish.stderr.split(separator: "\n").last ?? "")")
    }
}
