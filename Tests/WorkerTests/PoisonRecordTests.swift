import Foundation
import Kafka
import TestSupport
import Testing

/// Issue 22, item 1: one hostile record must never stop a partition. Each shape is written with kcat, dead-lettered
/// with its reason (summarised where it would not fit), and the valid events behind it are stored and committed.
@Suite("Poison records never stop a partition", .serialized, .timeLimit(.minutes(5)))
struct PoisonRecordTests {
    static func headers(_ record: KafkaMessage) -> [String: String] {
        Dictionary(record.headers.map { ($0.key, String(decoding: $0.value ?? [], as: UTF8.self)) },
                   uniquingKeysWith: { a, _ in a })
    }

    @Test("An 899 KB value with a 100 KB header, a 1 MB key, 1,000 headers, a tombstone, an empty value")
    func hostileRecords() async throws {
        let harness = try PipelineHarness(partitions: 2)
        try await harness.startBroker()
        let (poison, valid) = try await harness.publishPoisonRecords(partition: 0, validAfter: 5)
        let store = "sqlite:\(harness.directory.path)/observations.sqlite"
        let worker = try harness.startWorker(store: store)
        #expect(await worker.waitForExit(timeout: .seconds(120)) == 0, "worker: \(worker.stderr.suffix(2000))")

        let dump = try await harness.storeDump(store)
        #expect(Set(dump.keys) == Set(valid))
        let committed = try await harness.committedVersusEnd(group: "workers")
        #expect(committed.first { $0.partition == 0 }.map { $0.committed == $0.end && $0.end == Int64(poison + valid.count) } == true,
                "partition 0 committed to its end: \(committed)")

        let letters = try await harness.deadLetters()
        #expect(letters.count == poison)
        let byOffset = Dictionary(letters.map { (Self.headers($0)["__connect.errors.offset"] ?? "?", $0) },
                                  uniquingKeysWith: { a, _ in a })
        // 0: the issue's record: the value summarised, the 100 KB header and the key kept.
        let big = try #require(byOffset["0"])
        #expect(Self.headers(big)["x-dlq.summarized"] == "value")
        #expect(Self.headers(big)["__connect.errors.exception.class.name"] == "PayloadTooLarge")
        #expect(String(decoding: big.value, as: UTF8.self).hasPrefix(#"{"truncated":true,"size":898997,"#))
        #expect(big.key == Array("bigpoison".utf8))
        #expect(Self.headers(big)["big"]?.count == 100_600)
        // 1: the 1 MB key: left out, described by size and hash.
        let bigKey = try #require(byOffset["1"])
        #expect(bigKey.key == nil)
        #expect(Self.headers(bigKey)["x-dlq.summarized"] == "key")
        #expect(Self.headers(bigKey)["x-dlq.original-key"]?.hasPrefix(#"{"size":1000000,"#) == true)
        #expect(bigKey.value == Array("{}".utf8))
        // 2: 1,000 headers fit as they are.
        let many = try #require(byOffset["2"])
        #expect(many.headers.filter { $0.key.hasPrefix("h") }.count == 1000)
        #expect(Self.headers(many)["x-dlq.summarized"] == nil)
        #expect(Self.headers(many)["__connect.errors.exception.class.name"] == "MissingField")
        // 3: the tombstone, marked; 4: the empty value, not.
        let tombstone = try #require(byOffset["3"])
        #expect(Self.headers(tombstone)["x-dlq.original-value-null"] == "true")
        #expect(Self.headers(tombstone)["__connect.errors.exception.message"]?.contains("tombstone") == true)
        let empty = try #require(byOffset["4"])
        #expect(Self.headers(empty)["x-dlq.original-value-null"] == nil)
        #expect(Self.headers(empty)["__connect.errors.exception.class.name"] == "InvalidJSON")
        for letter in letters {
            #expect(!(Self.headers(letter)["__connect.errors.exception.message"] ?? "").isEmpty, "a reason on every one")
        }
    }

    /// 10 MESSAGE_TOO_LARGE, 87 INVALID_RECORD (e.g. no key on a compacted topic), 32 INVALID_TIMESTAMP.
    @Test("A dead letter the broker refuses for itself is sent again at once, in its minimal form",
          arguments: [10, 87, 32])
    func brokerRefusesDeadLetter(code: Int) async throws {
        let harness = try PipelineHarness(partitions: 2)
        try await harness.startBroker()
        try await harness.kcat(partition: 1, ["-K", "\\t", "-H", "trace=t1"],
                               input: .text("refused\t{oops\nafter\t\(PipelineHarness.validEvent("after").json)\n"))
        // The worker's dead-letter producer is the only producer: its first Produce is refused with `code`.
        try await harness.control("err 0 \(code) 1")
        let store = "sqlite:\(harness.directory.path)/observations.sqlite"
        let worker = try harness.startWorker(store: store)
        #expect(await worker.waitForExit(timeout: .seconds(120)) == 0, "worker: \(worker.stderr.suffix(2000))")
        #expect(worker.stderr.contains("a dead letter was refused for itself"))
        await #expect(try harness.storeDump(store).keys.contains { $0.hasPrefix("after/") })

        let letters = try await harness.deadLetters()
        #expect(letters.count == 1, "sent once more in its minimal form, not retried as it was")
        let letter = try #require(letters.first)
        let headers = Self.headers(letter)
        #expect(headers["x-dlq.summarized"] == "value,headers")
        #expect(headers["x-dlq.original-headers"]?.hasPrefix(#"{"count":1,"#) == true)
        #expect(headers["trace"] == nil)
        #expect(headers["__connect.errors.exception.class.name"] == "InvalidJSON")
        #expect(letter.key == Array("refused".utf8))
        let committed = try await harness.committedVersusEnd(group: "workers")
        #expect(committed.first { $0.partition == 1 }.map { $0.committed == 2 && $0.end == 2 } == true, "\(committed)")
    }
}
