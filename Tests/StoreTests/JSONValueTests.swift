import DailyValueContract
import Testing

/// The whole-document JSON reader (JWT headers and claims, JWKS files) over the contract's strict scanner.
@Suite struct JSONValueTests {
    private func parse(_ text: String) throws(DailyValueError) -> JSONValue { try JSONValue.parse(Array(text.utf8)) }

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
        ("", DailyValueError.Kind.invalidJSON), ("{", .invalidJSON), (#"{"a":1,}"#, .invalidJSON),
        ("[1 2]", .invalidJSON),
        ("{} {}", .invalidJSON), ("NaN", .invalidJSON), ("01", .invalidJSON), ("\"\u{01}\"", .invalidJSON),
        (#"{"a":1,"a":2}"#, .duplicateField), (#"{"o":{"b":1,"b":1}}"#, .duplicateField),
    ])
    func refusesWhatIsNotOneStrictJSONValue(text: String, kind: DailyValueError.Kind) {
        #expect(throws: DailyValueError.self) { try parse(text) }
        do {
            _ = try parse(text)
        } catch { #expect(error.kind == kind) }
    }

    @Test func refusesInvalidUTF8AndDeepNesting() throws {
        #expect(throws: DailyValueError.self) { try JSONValue.parse([0x22, 0xC3, 0x28, 0x22]) }
        #expect(throws: Never.self) { try parse(String(repeating: "[", count: 16) + String(repeating: "]", count: 16)) }
        let deep = String(repeating: "[", count: 17) + String(repeating: "]", count: 17)
        #expect(throws: DailyValueError(.invalidJSON, field: "", "nesting deeper than 16 at byte 16")) {
            try parse(deep)
        }
    }
}
