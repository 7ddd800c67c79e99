import JSON
import Testing

/// The whole-document JSON reader (JWT headers and claims, JWKS files, stored documents) over the strict scanner.
@Suite struct JSONValueTests {
    private func parse(_ text: String) throws(JSONError) -> JSONValue { try JSONValue.parse(Array(text.utf8)) }

    @Test func parsesEveryKindOfValue() throws {
        let value = try parse(
            #" {"s": "a\u00e9\n", "n": -1.5e2, "t": true, "f": false, "z": null, "a": [1, "x", []], "o": {}} "#)
        #expect(value["s"]?.string == "aé\n")
        #expect(value["n"]?.number == -150)
        #expect(value["t"]?.bool == true && value["f"]?.bool == false)
        #expect(value["z"] == .null)
        #expect(value["a"]?.array == [.number(1), .string("x"), .array([])])
        #expect(value["o"]?.object?.isEmpty == true)
        #expect(value["missing"] == nil && value["s"]?.number == nil && value["n"]?.string == nil)
    }

    @Test func aNumberADoubleCannotHoldIsNotANumber() throws {
        #expect(try parse("1e400") == .number(.infinity))
        #expect(try parse("1e400").number == nil)
    }

    @Test(arguments: [
        ("", JSONError.Kind.syntax), ("{", .syntax), (#"{"a":1,}"#, .syntax),
        ("[1 2]", .syntax),
        ("{} {}", .syntax), ("NaN", .syntax), ("01", .syntax), ("\"\u{01}\"", .syntax),
        (#"{"a":1,"a":2}"#, .duplicateMember), (#"{"o":{"b":1,"b":1}}"#, .duplicateMember),
    ])
    func refusesWhatIsNotOneStrictJSONValue(text: String, kind: JSONError.Kind) {
        #expect(throws: JSONError.self) { try parse(text) }
        do {
            _ = try parse(text)
        } catch { #expect(error.kind == kind) }
    }

    @Test func refusesInvalidUTF8AndDeepNesting() throws {
        #expect(throws: JSONError.self) { try JSONValue.parse([0x22, 0xC3, 0x28, 0x22]) }
        #expect(throws: Never.self) { try parse(String(repeating: "[", count: 16) + String(repeating: "]", count: 16)) }
        let deep = String(repeating: "[", count: 17) + String(repeating: "]", count: 17)
        #expect(throws: JSONError(.syntax, "nesting deeper than 16 at byte 16")) {
            try parse(deep)
        }
    }
}
