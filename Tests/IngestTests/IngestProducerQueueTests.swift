import Kafka
import Testing

@testable import IngestGateway

/// The gateway's producer queue is bounded by what the gateway admits (`--max-in-flight-bytes`,
/// `--max-concurrent-requests` × `--max-records`), not left at librdkafka's 1 GiB default; `-X` still overrides.
@Suite struct IngestProducerQueueTests {
    static func properties(_ arguments: [String]) throws -> [String: String] {
        let configuration = try #require(try IngestConfiguration.parse(["--brokers", "k:9092"] + arguments))
        let rendered = try IngestService.producerConfiguration(configuration).properties()
        // The last value of a key wins, as librdkafka applies them in order.
        return Dictionary(rendered.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    @Test("queue.buffering.max.kbytes is twice --max-in-flight-bytes; max.messages the records that may be admitted")
    func boundedByTheAdmission() throws {
        let defaults = try Self.properties(["--insecure-no-auth"])
        #expect(defaults["queue.buffering.max.kbytes"] == "131072", "2 × 64 MiB")
        #expect(defaults["queue.buffering.max.messages"] == "2560000", "256 requests × 10,000 records")
        let small = try Self.properties([
            "--insecure-no-auth", "--max-body-bytes", "1024", "--max-in-flight-bytes", "1500",
            "--max-concurrent-requests", "3", "--max-records", "7",
        ])
        #expect(small["queue.buffering.max.kbytes"] == "3", "3,000 bytes, rounded up to whole KiB")
        #expect(small["queue.buffering.max.messages"] == "21")
        let huge = try Self.properties([
            "--insecure-no-auth", "--max-concurrent-requests", "65536", "--max-records", "1000000",
        ])
        #expect(huge["queue.buffering.max.messages"] == "10000000", "capped where librdkafka's range is safe")
        let overridden = try Self.properties(["--insecure-no-auth", "-X", "queue.buffering.max.kbytes=5000"])
        #expect(overridden["queue.buffering.max.kbytes"] == "5000", "-X wins")
    }

    @Test("librdkafka accepts the rendered bound (a producer is created with it)")
    func acceptedByLibrdkafka() throws {
        let configuration = try #require(
            try IngestConfiguration.parse([
                "--brokers", "127.0.0.1:1", "--insecure-no-auth", "--max-concurrent-requests", "65536",
                "--max-records", "1000000", "--max-in-flight-bytes", "\(1 << 40)", "--max-body-bytes", "\(1 << 30)",
            ]))
        let producer = try KafkaProducer(configuration: IngestService.producerConfiguration(configuration))
        _ = producer
    }
}
