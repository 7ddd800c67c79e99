import DailyValueContract
import Testing

/// Rules of the decoder that the published JSON Schema cannot express and that no other suite pins down on their
/// own (docs/SCHEMA.md lists every such rule with its test). Each input here is valid under the schema.
@Suite struct DecoderOnlyRuleTests {
    /// The schema bounds characters (`maxLength` counts code points); the decoder bounds UTF-8 bytes.
    @Test func sourceStringsAreBoundedInUTF8Bytes() throws {
        let fits = String(repeating: "é", count: 128)  // 128 characters, 256 bytes
        let value = try Fixtures.decoder.decode(
            Fixtures.event(["source": "{\"name\":\"\(fits)\"}"]), recordTimestampMs: nil)
        #expect(value.source?.name == fits)
        let over = String(repeating: "é", count: 129)  // 129 characters, 258 bytes
        #expect(throws: DailyValueError(.invalidSource, field: "source.name", "must be at most 256 UTF-8 bytes")) {
            try Fixtures.decoder.decode(Fixtures.event(["source": "{\"name\":\"\(over)\"}"]), recordTimestampMs: nil)
        }
    }

    /// Nesting is a parser limit: 16 levels (the event object counts as one) decode, 17 are rejected.
    @Test func nestingIsLimitedToSixteenLevels() throws {
        let sixteen = String(repeating: "[", count: 15) + String(repeating: "]", count: 15)
        _ = try Fixtures.decoder.decode(Fixtures.event(["x": sixteen]), recordTimestampMs: nil)
        let seventeen = "[" + sixteen + "]"
        let error = #expect(throws: DailyValueError.self) {
            try Fixtures.decoder.decode(Fixtures.event(["x": seventeen]), recordTimestampMs: nil)
        }
        #expect(error?.kind == .invalidJSON)
        #expect(error?.rule.hasPrefix("nesting deeper than 16") == true, "\(String(describing: error))")
    }

    /// JSON Schema's `const: 1` and `integer` accept `1.0` and `1e3`; the decoder wants the integer form.
    @Test func schemaMustBeWrittenAsAnInteger() {
        for text in ["1.0", "1e0", "10e-1"] {
            #expect(throws: DailyValueError(.schemaVersionUnsupported, field: "schema", "only schema 1 is supported")) {
                try Fixtures.decoder.decode(Fixtures.event(["schema": text]), recordTimestampMs: nil)
            }
        }
    }

    /// A converted value is rounded to 9 decimals before the range check, so an alias value a hair beyond the
    /// alias-converted bound (which the schema states exactly) is accepted at the bound.
    @Test func aliasValuesAreRoundedBeforeTheRangeCheck() throws {
        let event = Fixtures.event([
            "metric": #""oxygen_saturation""#, "unit": #""1""#, "value": "1.0000000000001", "min": nil, "max": nil,
        ])
        #expect(try Fixtures.decoder.decode(event, recordTimestampMs: nil).value == 100)
        let beyond = Fixtures.event([
            "metric": #""oxygen_saturation""#, "unit": #""1""#, "value": "1.00000001", "min": nil, "max": nil,
        ])
        #expect(throws: DailyValueError(.valueOutOfRange, field: "value", "outside the metric's plausible range")) {
            try Fixtures.decoder.decode(beyond, recordTimestampMs: nil)
        }
    }
}
