import Essentials
import Producer
import Testing

/// The counter that refuses a body of too many records before it is whole agrees with the split that makes them:
/// for any bytes and any way of cutting them into pieces, it counts exactly the records the split would make of a
/// well-formed body, and never more than it makes of any body (it may leave out the split's problem records: no
/// closing bracket, data after it), so it never refuses a body the split would hold within the limit.
@Suite struct JSONRecordCounterTests {
    static let arrayBodies: [String] = [
        "[]", " [ ] ", "[1]", "[1,2,3]", "[1,]", "[,]", "[1,,2]", "[1,", "[", "[ {\"a\":[1,2]}, {\"b\":\"x,]\"} ]",
        #"[{"s":"a,]}[\"x"},{"n":[1,2,{"m":3}]}]"#, "[{},{},{}]", "[}, 1, 2]", "[1] trailing, 2", "[\"\\\\\",\"x\"]",
        "[{\"a\":1}\n,\n{\"b\":2}\n]\n", "[ [ ] , [ [ ] ] ]", "[\"unterminated", "[{]},{]}]",
    ]
    static let lineBodies: [String] = [
        "", "\n", "a", "a\n", "a\nb", "a\r\n\r\nb\r\n", "  \n\t\n x \n", "{\"a\":1}\n{\"b\":2}\n\n{\"c\":3}",
    ]

    /// Whether `counted` is what the split made of the body: exact without problem records, else between the
    /// well-formed records and all of them.
    private static func agrees(_ counted: Int, _ records: [InputRecord]) -> Bool {
        let wellFormed = records.filter { $0.problem == nil }.count
        return wellFormed == records.count ? counted == records.count : (wellFormed...records.count).contains(counted)
    }

    private static func count(_ text: String, _ framing: JSONRecordCounter.Framing, cuts: [Int]) -> Int {
        var counter = JSONRecordCounter(framing)
        let bytes = Array(text.utf8)
        var start = 0
        for cut in cuts.sorted() + [bytes.count] where cut >= start && cut <= bytes.count {
            bytes[start..<cut].withUnsafeBufferPointer { counter.feed($0) }
            start = cut
        }
        return counter.count
    }

    @Test("Arrays: as many as the split makes, whole or cut byte by byte", arguments: arrayBodies)
    func arrays(_ text: String) {
        let split = JSONRecordReader.arrayRecords(Array(text.utf8))
        #expect(Self.agrees(Self.count(text, .array, cuts: []), split))
        #expect(Self.agrees(Self.count(text, .array, cuts: Array(0...text.utf8.count)), split))
    }

    @Test("JSON lines: as many as the split makes, whole or cut byte by byte", arguments: lineBodies)
    func jsonLines(_ text: String) {
        let split = JSONRecordReader.lineRecords(Array(text.utf8))
        #expect(Self.agrees(Self.count(text, .lines, cuts: []), split))
        #expect(Self.agrees(Self.count(text, .lines, cuts: Array(0...text.utf8.count)), split))
    }

    @Test("10,000 random bodies of JSON-ish bytes, cut at random: the counter and the split agree")
    func randomBodies() {
        var random = SplitMix64(seed: 36)
        let alphabet = Array("[]{},\"\\ \n\r\tab1:".utf8)
        for round in 0..<10_000 {
            let length = Int(random.next() % 60)
            let body =
                [UInt8(ascii: "[")] + (0..<length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }
            let text = String(decoding: body, as: UTF8.self)
            let cuts = (0..<3).map { _ in Int(random.next() % UInt64(body.count + 1)) }
            let arraySplit = JSONRecordReader.arrayRecords(body)
            let lineSplit = JSONRecordReader.lineRecords(body)
            #expect(
                Self.agrees(Self.count(text, .array, cuts: cuts), arraySplit),
                "round \(round): \(text.debugDescription)")
            #expect(
                Self.agrees(Self.count(text, .lines, cuts: cuts), lineSplit), "round \(round): \(text.debugDescription)"
            )
        }
    }

    @Test("The split stops one record past its limit")
    func splitStopsPastTheLimit() {
        let array = Array(("[" + Array(repeating: "{}", count: 1000).joined(separator: ",") + "]").utf8)
        #expect(JSONRecordReader.arrayRecords(array, limit: 10).count == 11)
        #expect(JSONRecordReader.arrayRecords(array, limit: 1000).count == 1000)
        let lines = Array(Array(repeating: "{}", count: 1000).joined(separator: "\n").utf8)
        #expect(JSONRecordReader.lineRecords(lines, limit: 10).count == 11)
        #expect(JSONRecordReader.lineRecords(lines, limit: 1000).count == 1000)
    }
}
