import DailyValueContract
import Foundation
import Kafka
import Producer
import Testing

/// `prepare(body:framing:limit:)`, the gateway's one pass over a body, against the record-by-record path it must
/// equal (`JSONRecordReader` + `prepare(lines:)`): the same records, keys and bytes for every valid body, and nil
/// (the record-by-record path then answers) for anything else.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct BodyPrepareTests {
    private static let publisher: DailyValuePublisher = {
        var producer = KafkaProducerConfiguration(bootstrapServers: "127.0.0.1:9")
        producer.extra = ["log_level": "0"]
        return try! DailyValuePublisher(configuration: .init(producer: producer, topic: "t"))
    }()

    /// Generated events of every built-in metric, values and retractions, canonical lines.
    private static let events: [[UInt8]] = {
        let start = CivilDay(ProducerTestSupport.recentDay(daysAgo: 9))!
        let configuration = GeneratorConfiguration(
            patients: 12, days: 3, startDay: start, seed: 7, duplicateShare: 0.1, retractionShare: 0.1)
        return try! PopulationGenerator(configuration: configuration).map(\.bytes)
    }()

    /// The record-by-record path: every record with its key, or nil when any record is rejected or malformed.
    private func slow(_ body: [UInt8], _ framing: JSONRecordCounter.Framing, limit: Int) -> [[UInt8]]? {
        let records =
            framing == .array
            ? (JSONRecordReader.startsWithArray(body) ? JSONRecordReader.arrayRecords(body, limit: limit) : [])
            : JSONRecordReader.lineRecords(body, limit: limit)
        guard !records.isEmpty, records.count <= limit, records.allSatisfy({ $0.problem == nil }) else { return nil }
        let batch = Self.publisher.prepare(lines: records.map(\.bytes))
        guard batch.rejectedCount == 0 else { return nil }
        return (0..<batch.validCount).flatMap { [Array(batch.records.key(at: $0)), Array(batch.records.value(at: $0))] }
    }

    private func fast(_ body: [UInt8], _ framing: JSONRecordCounter.Framing, limit: Int) -> [[UInt8]]? {
        guard let batch = Self.publisher.prepare(body: body, framing: framing, limit: limit) else { return nil }
        #expect(batch.rejectedCount == 0 && batch.count == batch.validCount)
        return (0..<batch.validCount).flatMap { [Array(batch.records.key(at: $0)), Array(batch.records.value(at: $0))] }
    }

    private func expectSame(
        _ body: String, _ framing: JSONRecordCounter.Framing, limit: Int = 1000,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let bytes = Array(body.utf8)
        let same = fast(bytes, framing, limit: limit) == slow(bytes, framing, limit: limit)
        #expect(same, sourceLocation: sourceLocation)
    }

    private var lines: [String] { Self.events.map { String(decoding: $0, as: UTF8.self) } }

    @Test("valid arrays, whatever the whitespace: the same records and keys as the record-by-record path")
    func validArrays() {
        #expect(Self.events.count > 100)
        let separators = [",", " , ", ",\n", "\r\n,\t", "\n,\n\n"]
        for (index, separator) in separators.enumerated() {
            let body = " \n[" + (index % 2 == 0 ? "" : "\n  ") + lines.joined(separator: separator) + "\n] \n"
            #expect(fast(Array(body.utf8), .array, limit: 10_000)?.count == 2 * Self.events.count)
            expectSame(body, .array, limit: 10_000)
        }
        // A pretty-printed event (newlines and spaces inside the object) and escapes in strings.
        let pretty = lines[0].replacingOccurrences(of: ",\"", with: ",\n    \"")
            .replacingOccurrences(of: ":", with: " : ")
        #expect(fast(Array("[\(pretty),\(lines[1])]".utf8), .array, limit: 10)?.count == 4)
        expectSame("[\(pretty),\(lines[1])]", .array)
        let escaped = lines[2].replacingOccurrences(of: "\"metric\"", with: "\"met\\u0072ic\"")
        #expect(escaped != lines[2] && fast(Array("[\(escaped)]".utf8), .array, limit: 10)?.count == 2)
        expectSame("[\(escaped)]", .array)
    }

    @Test("valid JSON lines, \\r\\n and blank lines: the same records as the record-by-record path")
    func validLines() {
        for separator in ["\n", "\r\n", "\n\n  \n", "\n\t\r\n"] {
            expectSame(lines.joined(separator: separator), .lines, limit: 10_000)
            expectSame("\n" + lines.joined(separator: separator) + "\n", .lines, limit: 10_000)
        }
    }

    @Test("anything the record-by-record path would refuse or answer otherwise: nil")
    func refusedBodies() {
        let one = lines[0]
        let invalid = one.replacingOccurrences(of: "\"schema\":1", with: "\"schema\":2")
        let arrays = [
            "", "[]", " [ ] ", "[\(one)", "[\(one),]", "[,\(one)]", "[\(one)] x", "[\(one) x]", "[\(one)\(one)]",
            "[\(one),\(invalid)]", "{\"a\":1}", "[\(one),[]]", "[\(one), 1]",
            "[" + String(one.dropLast()) + "]",
        ]
        for body in arrays {
            let batch = Self.publisher.prepare(body: Array(body.utf8), framing: .array, limit: 100)
            #expect(batch == nil, "\(body.prefix(40))")
        }
        let lineBodies = [
            "", "\n \n", "\(one)\n\(invalid)", "\(one) x", "[\(one)]", "\(one)\(one)", String(one.dropLast()) + "\n}",
        ]
        for body in lineBodies {
            let batch = Self.publisher.prepare(body: Array(body.utf8), framing: .lines, limit: 100)
            #expect(batch == nil, "\(body.prefix(40))")
        }
    }

    @Test("edge bytes: NUL, a byte-order mark, a line of only \\r, an event at the payload limit and one byte past it")
    func edgeBytes() {
        let one = lines[0]
        expectSame("[\(one)]\u{0}", .array)
        expectSame("\u{FEFF}[\(one)]", .array)
        expectSame("\u{FEFF}\(one)", .lines)
        expectSame("\(one)\n\r\n\(lines[1])", .lines)
        expectSame("\(one)\n\u{0}\n", .lines)
        #expect(Self.publisher.prepare(body: Array("[\(one)]\u{0}".utf8), framing: .array, limit: 10) == nil)
        // Padded with unknown members' whitespace to exactly the decoder's limit, then one byte more.
        let limit = Self.publisher.configuration.decoder.policy.maxPayloadBytes
        let padding = limit - one.utf8.count
        let exact = String(one.dropLast()) + String(repeating: " ", count: padding) + "}"
        #expect(exact.utf8.count == limit)
        #expect(fast(Array("[\(exact)]".utf8), .array, limit: 10)?.count == 2)
        expectSame("[\(exact)]", .array)
        expectSame("[ \(exact) ]", .array)
        expectSame("[\(String(exact.dropLast()) + " }")]", .array)
        let over = Array("[\(String(exact.dropLast()) + " }")]".utf8)
        #expect(Self.publisher.prepare(body: over, framing: .array, limit: 10) == nil)
        expectSame(exact, .lines)
        expectSame(String(exact.dropLast()) + " }", .lines)
    }

    @Test("more records than the limit: nil, and nothing past the limit is read")
    func limit() {
        let three = "[" + lines[0..<3].joined(separator: ",") + "]"
        #expect(Self.publisher.prepare(body: Array(three.utf8), framing: .array, limit: 3)?.validCount == 3)
        #expect(Self.publisher.prepare(body: Array(three.utf8), framing: .array, limit: 2) == nil)
        let threeLines = lines[0..<3].joined(separator: "\n")
        #expect(Self.publisher.prepare(body: Array(threeLines.utf8), framing: .lines, limit: 3)?.validCount == 3)
        #expect(Self.publisher.prepare(body: Array(threeLines.utf8), framing: .lines, limit: 2) == nil)
    }

    @Test("every record is its range of the body: the body is held once, not copied per record")
    func recordsAreRangesOfTheBody() throws {
        let body = Array(("[" + lines[0..<5].joined(separator: ", ") + "]").utf8)
        let batch = try #require(Self.publisher.prepare(body: body, framing: .array, limit: 10))
        #expect(batch.records.values == body)
        var expectedStart = 1
        for index in 0..<5 {
            let range = batch.records.valueRange(at: index)
            #expect(range.lowerBound == expectedStart)
            expectedStart = range.upperBound + 2
        }
    }
}
