import DailyValueContract
import ObservationMapping
import Testing

/// Stored `source` fields over their cap (issue 12): the event is accepted, the field is left out and reported in
/// ``ValidatedDailyValue/omittedSourceFields``; over the general 256-byte limit the event is still rejected.
@Suite struct SourceCapTests {
    static let policy = ValidationPolicy()

    static func validate(_ source: String) throws -> ValidatedDailyValue {
        try Fixtures.decoder.validate(Fixtures.event(["source": source]), recordTimestampMs: nil)
    }

    @Test func fieldsAtTheirCapAreKept() throws {
        // Not hex digits (a run of 16+ is a device identifier) and a hardware model identifier (issue 28).
        let bundle = String(repeating: "q", count: Self.policy.maxBundleIdBytes)
        let model = "iPhone" + String(repeating: "1", count: Self.policy.maxModelBytes - 8) + ",5"
        let version = String(repeating: "v", count: Self.policy.maxSoftwareVersionBytes)
        let validated = try Self.validate(
            #"{"bundleId":"\#(bundle)","model":"\#(model)","softwareVersion":"\#(version)"}"#)
        #expect(validated.event.source == DailyValue.Source(bundleId: bundle, model: model, softwareVersion: version))
        #expect(validated.omittedSourceFields.isEmpty)
    }

    @Test func aFieldOverItsCapIsLeftOutAndTheValueKept() throws {
        let bundle = String(repeating: "q", count: Self.policy.maxBundleIdBytes + 1)
        let model = String(repeating: "é", count: 13)  // 26 bytes, 13 characters
        let validated = try Self.validate(
            #"{"name":"Apple Watch","bundleId":"\#(bundle)","model":"\#(model)","softwareVersion":"11.0.1"}"#)
        #expect(validated.event.value == 71.4)
        #expect(validated.event.source == DailyValue.Source(name: "Apple Watch", softwareVersion: "11.0.1"))
        #expect(validated.omittedSourceFields == ["source.bundleId", "source.model"])

        let mapped = try Fixtures.mapper.map(validated, recordTimestampMs: 0).resource
        #expect(!mapped.contains("bundleIdentifier") && !mapped.contains("\"model\""))
        #expect(mapped.contains(#"{"url":"softwareVersion","valueString":"11.0.1"}"#))
    }

    @Test func everyFieldOverItsCapLeavesNoSource() throws {
        let long = String(repeating: "x", count: 100)
        let validated = try Self.validate(#"{"bundleId":"\#(long)","model":"\#(long)","softwareVersion":"\#(long)"}"#)
        #expect(validated.event.source == nil)
        #expect(validated.omittedSourceFields.count == 3)
    }

    @Test func overTheGeneralLimitTheEventIsStillRejected() {
        let long = String(repeating: "x", count: Self.policy.maxSourceFieldBytes + 1)
        #expect(throws: DailyValueError(.invalidSource, field: "source.model", "must be at most 256 UTF-8 bytes")) {
            try Self.validate(#"{"model":"\#(long)"}"#)
        }
    }
}
