import Foundation
import Hashing
import Kafka
import Testing

@testable import WorkerCore

/// A dead letter always fits the dead-letter producer's limit: the largest parts are summarised (size and
/// SHA-256) only as far as needed, and the minimal form summarises everything.
@Suite("Dead letters fit the size limit")
struct DeadLetterFittingTests {
    static let builder = DeadLetter(topic: "t.dlq", group: "g", workerID: "w", workerVersion: "1")

    static func message(key: [UInt8]? = Array("p-1".utf8), value: [UInt8], headers: [KafkaHeader] = [],
                        valueIsNull: Bool = false) -> KafkaMessage {
        KafkaMessage(topic: "t", partition: 2, offset: 7, key: key, value: value, headers: headers,
                     timestampMs: 1_764_000_000_000, timestampType: .createTime, valueIsNull: valueIsNull)
    }

    static func record(_ message: KafkaMessage, builder: DeadLetter = builder) -> DeadLetterRecord {
        builder.record(for: message, stage: .validate, className: "PayloadTooLarge", reason: "too large")
    }

    static func header(_ record: KafkaOutgoingMessage, _ key: String) -> String? {
        record.headers.first { $0.key == key }.map { String(decoding: $0.value ?? [], as: UTF8.self) }
    }

    @Test("The budget is 5 % under the producer's limit")
    func budget() {
        #expect(Self.builder.sizeBudget == 950_000)
        #expect(DeadLetter.budget(producerMaxBytes: 10_000) == 8_976)
    }

    @Test("The issue's record: a 898,997-byte value and a 100,600-byte header; the value alone is summarised")
    func valueAndBigHeader() {
        let value = [UInt8](repeating: UInt8(ascii: "x"), count: 898_997)
        let big = KafkaHeader(key: "big", value: [UInt8](repeating: UInt8(ascii: "b"), count: 100_600))
        let record = Self.record(Self.message(value: value, headers: [big]))
        #expect(record.message.maxWireSize <= Self.builder.sizeBudget)
        #expect(record.summarized == [.value])
        #expect(String(decoding: record.message.value, as: UTF8.self)
            == #"{"truncated":true,"size":898997,"sha256":"\#(SHA256.hex(value))"}"#)
        #expect(Self.header(record.message, "x-dlq.payload-sha256") == SHA256.hex(value))
        #expect(Self.header(record.message, "x-dlq.summarized") == "value")
        #expect(record.message.headers.contains(big))
        #expect(record.message.key == Array("p-1".utf8))
    }

    @Test("A record under the budget stays verbatim, however close")
    func verbatimUnderBudget() {
        let probe = Self.record(Self.message(value: []))
        let room = Self.builder.sizeBudget - probe.message.maxWireSize
        let record = Self.record(Self.message(value: [UInt8](repeating: 65, count: room)))
        #expect(record.message.maxWireSize == Self.builder.sizeBudget)
        #expect(record.summarized.isEmpty)
        let over = Self.record(Self.message(value: [UInt8](repeating: 65, count: room + 1)))
        #expect(over.summarized == [.value])
    }

    @Test("A 1 MB key: the key is left out and described; the value stays")
    func hugeKey() {
        let key = [UInt8](repeating: UInt8(ascii: "k"), count: 1_000_000)
        let record = Self.record(Self.message(key: key, value: Array("{}".utf8)))
        #expect(record.summarized == [.key])
        #expect(record.message.key == nil)
        #expect(record.message.value == Array("{}".utf8))
        #expect(Self.header(record.message, "x-dlq.original-key")
            == #"{"size":1000000,"sha256":"\#(SHA256.hex(key))"}"#)
        #expect(record.message.maxWireSize <= Self.builder.sizeBudget)
    }

    @Test("1,000 headers of 2 KB: the largest are summarised one by one, in place, until it fits")
    func manyLargeHeaders() {
        let headers = (0..<1000).map { i in
            KafkaHeader(key: "h\(i)", value: [UInt8](repeating: UInt8(ascii: "v"), count: 2_000 + i))
        }
        let record = Self.record(Self.message(value: Array("{}".utf8), headers: headers))
        #expect(record.summarized == [.headers])
        #expect(record.message.maxWireSize <= Self.builder.sizeBudget)
        let summaries = record.message.headers.filter { $0.key == "x-dlq.original-header" }
        let verbatim = record.message.headers.filter { $0.key.hasPrefix("h") }
        #expect(summaries.count + verbatim.count == 1000)
        #expect(!summaries.isEmpty && !verbatim.isEmpty)
        // Largest first: every summarised header was at least as large as every verbatim one.
        let last = String(decoding: summaries.last?.value ?? [], as: UTF8.self)
        #expect(last == #"{"name":"h999","nameSize":4,"size":2999,"sha256":"\#(SHA256.hex(headers[999].value!))"}"#)
        #expect(record.message.headers[999].key == "x-dlq.original-header")
        #expect(verbatim.allSatisfy { ($0.value?.count ?? 0) <= 2_000 + 1000 - summaries.count })
    }

    @Test("100,000 small headers: all are replaced by one summary")
    func manySmallHeaders() {
        let headers = (0..<100_000).map { KafkaHeader(key: "h\($0)", string: "v") }
        let record = Self.record(Self.message(value: Array("{}".utf8), headers: headers))
        #expect(record.summarized == [.headers])
        #expect(record.message.maxWireSize <= Self.builder.sizeBudget)
        let summary = Self.header(record.message, "x-dlq.original-headers") ?? ""
        #expect(summary.hasPrefix(#"{"count":100000,"#))
        #expect(!record.message.headers.contains { $0.key.hasPrefix("h") })
    }

    @Test("20,000 headers of 300 bytes (6 MB): fitted without rebuilding the record per header")
    func manyMidSizedHeaders() {
        let headers = (0..<20_000).map { KafkaHeader(key: "h\($0)", value: [UInt8](repeating: 1, count: 300)) }
        let record = Self.record(Self.message(value: Array("{}".utf8), headers: headers))
        #expect(record.summarized == [.headers])
        #expect(record.message.maxWireSize <= Self.builder.sizeBudget)
        #expect(record.message.headers.contains { $0.key == "x-dlq.original-headers" })
    }

    @Test("A header with a 200 KB name: its summary keeps 64 bytes of the name and its size")
    func hugeHeaderName() {
        let name = String(repeating: "n", count: 200_000)
        let builder = DeadLetter(topic: "t.dlq", group: "g", workerID: "w", workerVersion: "1", producerMaxBytes: 100_000)
        let record = Self.record(Self.message(value: [], headers: [KafkaHeader(key: name, string: "v")]), builder: builder)
        let summary = Self.header(record.message, "x-dlq.original-header") ?? ""
        #expect(summary.hasPrefix(#"{"name":"\#(String(repeating: "n", count: 64))","nameSize":200000,"size":1,"#))
        #expect(record.message.maxWireSize <= builder.sizeBudget)
    }

    @Test("The minimal form summarises value and headers, and a long key (the origin stands in); a short key stays")
    func minimal() {
        let headers = [KafkaHeader(key: "trace", string: "t1")]
        let short = Self.record(Self.message(value: Array("{oops".utf8), headers: headers)).minimal()
        #expect(short.isMinimal)
        #expect(short.summarized == [.value, .headers])
        #expect(short.message.key == Array("p-1".utf8))
        #expect(Self.header(short.message, "x-dlq.summarized") == "value,headers")
        #expect(Self.header(short.message, "__connect.errors.offset") == "7")
        let long = Self.record(Self.message(key: [UInt8](repeating: 1, count: 300), value: [])).minimal()
        #expect(long.summarized == [.value, .key])
        #expect(long.message.key == Array("t/2/7".utf8), "the origin stands in: a compacted topic needs a key")
        #expect(long.message.maxWireSize < 2_000)
        let keyless = Self.record(Self.message(key: nil, value: [])).minimal()
        #expect(keyless.message.key == Array("t/2/7".utf8))
    }

    @Test("A null value (tombstone) is marked; an empty one is not")
    func nullValue() {
        let tombstone = Self.record(Self.message(value: [], valueIsNull: true)).message
        #expect(Self.header(tombstone, "x-dlq.original-value-null") == "true")
        let empty = Self.record(Self.message(value: [])).message
        #expect(Self.header(empty, "x-dlq.original-value-null") == nil)
    }
}
