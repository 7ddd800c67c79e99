import DailyValueContract
import JSON
import ObservationMapping
import Testing

/// The JSON writer writes into the storage of the array it returns: a document larger than the first capacity is
/// written again with exactly the room it needs, byte for byte the same.
@Suite struct JSONWriterTests {
    static func document(_ w: inout JSONWriter) {
        w.beginObject()
        w.member("text", "quote \" backslash \\ tab \t newline \n bell \u{07} Zoë 🫀")
        w.key(text: "run-time \"key\"")
        w.beginArray()
        for number in [71.4, 8432, 0.00001, 1e-7, 1.5e20, -0.0, -2.5, .infinity] { w.value(number) }
        w.value(Int64.min)
        w.endArray()
        w.key("date")
        w.value(unescapedUpTo: FHIRDateTime.maxCount) {
            FHIRDateTime.format(epochSeconds: 0, offsetSeconds: -18_000, into: $0)
        }
        w.key("raw")
        w.rawValue(Array(#"{"a":[1,2]}"#.utf8))
        w.endObject()
    }

    static let expected = #"""
        {"text":"quote \" backslash \\ tab \t newline \n bell \u0007 Zoë 🫀","run-time \"key\"":[71.4,8432,0.00001,\#
        0.0000001,150000000000000000000,0,-2.5,0,-9223372036854775808],"date":"1969-12-31T19:00:00-05:00",\#
        "raw":{"a":[1,2]}}
        """#

    @Test(arguments: [1, 16, 64, 180, 4096])
    func sameBytesAtAnyCapacity(capacity: Int) {
        let bytes = JSONWriter.bytes(capacity: capacity) { Self.document(&$0) }
        #expect(String(decoding: bytes, as: UTF8.self) == Self.expected)
    }

    @Test func emptyDocument() {
        #expect(JSONWriter.bytes(capacity: 8) { _ in }.isEmpty)
    }

    @Test("escaping into a plain byte array matches the writer's")
    func quotingIntoAnArray() {
        var out: [UInt8] = []
        JSONWriter.appendQuoted("a\"b\\c\u{1F}d", to: &out)
        #expect(String(decoding: out, as: UTF8.self) == #""a\"b\\c\u001fd""#)
        #expect(JSONWriter.string { $0.value("a\"b\\c\u{1F}d") } == #""a\"b\\c\u001fd""#)
    }

    @Test("a path of three parts is escaped part by part")
    func path() {
        #expect(JSONWriter.string { $0.value(path: "p-1", "a\"b", "2026-10-01") } == #""p-1/a\"b/2026-10-01""#)
    }

    @Test("instants are clamped to years 0001-9999")
    func instants() {
        func instant(_ ms: Int64) -> String {
            JSONWriter.string { w in
                w.value(unescapedUpTo: FHIRDateTime.maxCount) { FHIRDateTime.instant(epochMilliseconds: ms, into: $0) }
            }
        }
        #expect(instant(1_764_547_200_123) == #""2025-12-01T00:00:00.123Z""#)
        #expect(instant(-1) == #""1969-12-31T23:59:59.999Z""#)
        #expect(instant(.max) == #""9999-12-31T23:59:59.999Z""#)
        #expect(instant(.min) == #""0001-01-01T00:00:00.000Z""#)
    }
}
