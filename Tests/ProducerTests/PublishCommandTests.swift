import Foundation
import Kafka
import TestSupport
import Testing

/// `producer publish` run as a real process against a mock cluster, and the same input through kcat.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct PublishCommandTests {
    let topic = "daily-values"

    /// Five good events (two people, odd formatting kept) and three bad ones, as JSON lines.
    private func sampleLines() -> (good: [(line: Int, text: String)], bad: [(line: Int, reason: String)], file: String)
    {
        let day = ProducerTestSupport.recentDay(daysAgo: 3)
        let good = [
            #"{"schema":1,"patient":"p-000001","metric":"heart_rate","day":"\#(day)","timeZone":"Europe/Bratislava","value":71.4,"min":48,"max":162,"unit":"/min","version":1}"#,
            #"{"schema":1,"patient":"p-000002","metric":"steps","day":"\#(day)","utcOffset":"-03:30","value":8042,"version":2}"#,
            #"{ "patient" : "p-000001", "schema":1, "metric":"steps","day":"\#(day)","timeZone":"Asia/Kathmandu","value":12001, "note":"kept"}"#,
            #"{"schema":1,"patient":"p-000002","metric":"oxygen_saturation","day":"\#(day)","timeZone":"Pacific/Kiritimati","value":0.97,"unit":"1","version":3}"#,
            #"{"schema":1,"patient":"p-000001","metric":"body_mass","day":"\#(day)","timeZone":"Australia/Lord_Howe","value":81.5,"unit":"kg","version":4}"#,
            #"{"schema":1,"kind":"retraction","patient":"p-000002","metric":"steps","day":"\#(day)","version":5,"reason":"deleted"}"#,
        ]
        let bad = [
            (
                #"{"schema":1,"patient":"p-000003","metric":"heart_rate","day":"\#(day)","timeZone":"Europe/Bratislava","value":71,"unit":"beats"}"#,
                "InvalidUnit"
            ),
            (#"{"schema":1,"patient":"p-000003","metric":"steps","day":"\#(day)","#, "InvalidJSON"),
            (
                #"{"schema":2,"patient":"p-000003","metric":"steps","day":"\#(day)","timeZone":"UTC","value":1}"#,
                "SchemaVersionUnsupported"
            ),
            (
                #"{"schema":1,"kind":"retraction","patient":"p-000003","metric":"steps","day":"\#(day)","version":6,"reason":""}"#,
                "InvalidReason"
            ),
        ]
        // Interleave: good, good, bad, good, (blank), bad, good, bad, good, a retraction, a bad retraction.
        let order: [Either] = [
            .good(0), .good(1), .bad(0), .good(2), .blank, .bad(1), .good(3), .bad(2), .good(4), .good(5), .bad(3),
        ]
        var file = ""
        var goodLines: [(Int, String)] = []
        var badLines: [(Int, String)] = []
        for (index, item) in order.enumerated() {
            switch item {
            case .good(let i):
                file += good[i] + "\n"
                goodLines.append((index + 1, good[i]))
            case .bad(let i):
                file += bad[i].0 + "\n"
                badLines.append((index + 1, bad[i].1))
            case .blank:
                file += "\n"
            }
        }
        return (goodLines, badLines, file)
    }

    private enum Either {
        case good(Int)
        case bad(Int)
        case blank
    }

    private func readTopic(_ cluster: KafkaMockCluster) async throws -> [KafkaMessage] {
        try await KafkaConsumer.readAll(topic: topic, bootstrapServers: cluster.bootstrapServers)
    }

    @Test func withoutSkipInvalidNothingIsSentAndEveryBadLineIsNamed() async throws {
        let cluster = try ProducerTestSupport.cluster(topic: topic)
        let directory = try ProducerTestSupport.makeDirectory()
        defer { ProducerTestSupport.removeDirectory(directory) }
        let sample = sampleLines()
        let input = directory.appendingPathComponent("events.jsonl")
        try sample.file.write(to: input, atomically: true, encoding: .utf8)

        let run = try await ProducerTestSupport.producer(
            ["publish", "--brokers", cluster.bootstrapServers, input.path])

        #expect(run.status == 1)
        for bad in sample.bad {
            #expect(run.stderr.contains("\(input.path):\(bad.line): \(bad.reason)"), "\(run.stderr)")
        }
        #expect(run.stderr.contains("nothing sent"))
        #expect(try await readTopic(cluster).isEmpty)
    }

    @Test func skipInvalidSendsTheGoodLinesByteExact() async throws {
        let cluster = try ProducerTestSupport.cluster(topic: topic)
        let directory = try ProducerTestSupport.makeDirectory()
        defer { ProducerTestSupport.removeDirectory(directory) }
        let sample = sampleLines()
        let input = directory.appendingPathComponent("events.jsonl")
        try sample.file.write(to: input, atomically: true, encoding: .utf8)

        let run = try await ProducerTestSupport.producer(
            ["publish", "--skip-invalid", input.path], environment: ["DVP_BROKERS": cluster.bootstrapServers])

        #expect(run.status == 1, "invalid lines still fail the run without --allow-invalid")
        for bad in sample.bad {
            #expect(run.stderr.contains("\(input.path):\(bad.line): \(bad.reason)"), "\(run.stderr)")
        }
        #expect(run.stderr.contains("summary: read 10, sent 6, acknowledged 6, rejected 4, failed 0"), "\(run.stderr)")
        let records = try await readTopic(cluster)
        #expect(Set(records.map { String(decoding: $0.value, as: UTF8.self) }) == Set(sample.good.map(\.text)))
        for record in records {
            let object = try JSONSerialization.jsonObject(with: Data(record.value)) as! [String: Any]
            #expect(record.key == Array((object["patient"] as! String).utf8))
        }
        // Per-person order is the file's order.
        let p1 = records.filter { $0.key == Array("p-000001".utf8) }.map { String(decoding: $0.value, as: UTF8.self) }
        #expect(p1 == sample.good.map(\.text).filter { $0.contains("p-000001") })
    }

    @Test func allowInvalidSucceedsAndArraysAndStdinAreRead() async throws {
        let cluster = try ProducerTestSupport.cluster(topic: "custom")
        let directory = try ProducerTestSupport.makeDirectory()
        defer { ProducerTestSupport.removeDirectory(directory) }
        let sample = sampleLines()
        let array = directory.appendingPathComponent("events.json")
        try ("[\n" + sample.good.map { "  " + $0.text }.joined(separator: ",\n") + "\n]\n")
            .write(to: array, atomically: true, encoding: .utf8)
        let stdin = directory.appendingPathComponent("stdin.jsonl")
        try sample.file.write(to: stdin, atomically: true, encoding: .utf8)

        let bootstrapFile = directory.appendingPathComponent("bootstrap")
        try (cluster.bootstrapServers + "\n").write(to: bootstrapFile, atomically: true, encoding: .utf8)

        let run = try await ProducerTestSupport.producer(
            ["publish", "--allow-invalid", "--brokers-file", bootstrapFile.path, array.path, "-"], stdin: stdin,
            environment: ["DVP_TOPIC": "custom", "DVP_X_LINGER_MS": "2"])

        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("<stdin>:3: InvalidUnit"), "\(run.stderr)")
        let records = try await KafkaConsumer.readAll(topic: "custom", bootstrapServers: cluster.bootstrapServers)
        #expect(records.count == 2 * sample.good.count)
        #expect(Set(records.map { String(decoding: $0.value, as: UTF8.self) }) == Set(sample.good.map(\.text)))
    }

    @Test func rawSendsEveryLineUnvalidated() async throws {
        let cluster = try ProducerTestSupport.cluster(topic: topic)
        let directory = try ProducerTestSupport.makeDirectory()
        defer { ProducerTestSupport.removeDirectory(directory) }
        let sample = sampleLines()
        let input = directory.appendingPathComponent("poison.jsonl")
        try sample.file.write(to: input, atomically: true, encoding: .utf8)

        let run = try await ProducerTestSupport.producer([
            "publish", "--raw", "-b", cluster.bootstrapServers, input.path,
        ])

        #expect(run.status == 0, "\(run.stderr)")
        let records = try await readTopic(cluster)
        let lines = sample.file.split(separator: "\n").map { Array($0.utf8) }
        #expect(Set(records.map(\.value)) == Set(lines))
        // The broken line has no readable patient, so no key; the others are keyed by their patient field.
        #expect(records.filter { $0.key == nil }.count == 1)
        #expect(records.filter { $0.key == Array("p-000003".utf8) }.count == 3)
    }

    @Test func badConfigurationIsAUsageError() async throws {
        let run = try await ProducerTestSupport.producer(
            ["publish", "--brokers", "127.0.0.1:1", "/dev/null"], environment: ["DVP_X_NO_SUCH_PROPERTY": "1"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("no.such.property"), "\(run.stderr)")
        let help = try await ProducerTestSupport.producer(["publish", "--help"])
        #expect(help.status == 0)
        #expect(String(decoding: help.stdoutData, as: UTF8.self).contains("--skip-invalid"))
    }

    @Test func kcatPublishedFileReadsBackIdentically() async throws {
        let cluster = try ProducerTestSupport.cluster(topic: topic)
        let directory = try ProducerTestSupport.makeDirectory()
        defer { ProducerTestSupport.removeDirectory(directory) }
        let sample = sampleLines()
        let keyed = directory.appendingPathComponent("keyed.txt")
        // JSON text cannot contain a raw tab, so a tab separates key and value safely.
        let patients = sample.good.map { line -> String in
            let object = try! JSONSerialization.jsonObject(with: Data(line.text.utf8)) as! [String: Any]
            return object["patient"] as! String
        }
        try zip(patients, sample.good).map { "\($0)\t\($1.text)\n" }.joined()
            .write(to: keyed, atomically: true, encoding: .utf8)

        let kcat = try await ProducerTestSupport.run(
            URL(fileURLWithPath: "/usr/bin/kcat"),
            ["-P", "-b", cluster.bootstrapServers, "-t", topic, "-K", "\\t", "-X", "log_level=3"], stdin: keyed)
        #expect(kcat.status == 0, "\(kcat.stderr)")

        let records = try await readTopic(cluster)
        let received = Set(
            records.map {
                "\(String(decoding: $0.key ?? [], as: UTF8.self))\t\(String(decoding: $0.value, as: UTF8.self))"
            })
        #expect(received == Set(zip(patients, sample.good).map { "\($0)\t\($1.text)" }))
    }
}
