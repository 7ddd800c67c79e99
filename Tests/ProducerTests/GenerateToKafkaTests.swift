import Foundation
import Kafka
import TestSupport
import Testing

/// `producer generate` sending to Kafka: the records are exactly the `--out` lines of the same seed, keyed by
/// patient, in each person's send order.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct GenerateToKafkaTests {
    @Test func kafkaOutputEqualsFileOutputPerPatientInOrder() async throws {
        let cluster = try ProducerTestSupport.cluster(topic: "generated", partitions: 4)
        let directory = try ProducerTestSupport.makeDirectory()
        defer { ProducerTestSupport.removeDirectory(directory) }
        let file = directory.appendingPathComponent("events.jsonl")
        let population = [
            "generate", "--patients", "40", "--days", "3", "--seed", "11", "--metrics", "steps,heart_rate,body_mass",
            "--start-day", ProducerTestSupport.recentDay(daysAgo: 10), "--late-share", "0.3", "--duplicate-share",
            "0.2", "--out-of-order-share", "0.2", "--invalid-share", "0.1",
        ]

        let toFile = try await ProducerTestSupport.producer(population + ["--out", file.path])
        let toKafka = try await ProducerTestSupport.producer(
            population + ["--brokers", cluster.bootstrapServers, "--topic", "generated"])

        #expect(toFile.status == 0, "\(toFile.stderr)")
        #expect(toKafka.status == 0, "\(toKafka.stderr)")
        let lines = try Data(contentsOf: file).split(separator: UInt8(ascii: "\n")).map { Array($0) }
        #expect(toKafka.stderr.contains("acknowledged \(lines.count), rejected 0, failed 0"), "\(toKafka.stderr)")

        let records = try await KafkaConsumer.readAll(topic: "generated", bootstrapServers: cluster.bootstrapServers)
        #expect(records.count == lines.count)
        // Group the file's lines by the patient the generator assigned (the id is in every line, even broken ones).
        let patientPattern = try Regex(#""patient":"(p-\d+)""#)
        var expected: [String: [[UInt8]]] = [:]
        var keyless: [[UInt8]] = []
        for line in lines {
            if let match = String(decoding: line, as: UTF8.self).firstMatch(of: patientPattern),
                let id = match.output[1].substring
            {
                expected[String(id), default: []].append(line)
            } else {
                keyless.append(line)
            }
        }
        var received: [String: [[UInt8]]] = [:]
        for record in records {
            received[String(decoding: record.key ?? [], as: UTF8.self), default: []].append(record.value)
        }
        // Lines that lost their patient (missing_field) still carry the generator's key.
        let keyedExpectation = expected.mapValues(\.count).reduce(0) { $0 + $1.value } + keyless.count
        #expect(keyedExpectation == records.count)
        for (patient, values) in expected {
            let sent = try #require(received[patient])
            #expect(sent.filter { values.contains($0) } == values, "\(patient): per-person order differs")
        }
    }

    @Test func rateLimitSlowsTheOutputDown() async throws {
        let directory = try ProducerTestSupport.makeDirectory()
        defer { ProducerTestSupport.removeDirectory(directory) }
        let started = ContinuousClock.now
        let run = try await ProducerTestSupport.producer(
            [
                "generate", "--patients", "10", "--days", "2", "--metrics", "steps,heart_rate", "--rate", "100/s",
                "--out", directory.appendingPathComponent("slow.jsonl").path,
            ])
        let elapsed = ContinuousClock.now - started
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("generated 40 events"), "\(run.stderr)")
        #expect(elapsed >= .milliseconds(350), "40 events at 100/s take about 0.4 s, took \(elapsed)")
    }

    @Test(arguments: [["--help"], ["help"], ["publish", "--help"], ["generate", "--help"], ["help", "generate"]])
    func everyCommandHasHelp(_ arguments: [String]) async throws {
        let run = try await ProducerTestSupport.producer(arguments)
        #expect(run.status == 0)
        #expect(String(decoding: run.stdoutData, as: UTF8.self).contains("Usage: producer"))
    }
}
