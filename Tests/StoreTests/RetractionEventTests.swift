import DailyValueContract
import Foundation
import ObservationMapping
import Testing

/// The retraction event (docs/LIFECYCLE.md): decoded by `validateEvent`, refused where a DailyValue is due, mapped
/// to a store record with the value's resource id.
@Suite struct RetractionEventTests {
    static func retraction(_ overrides: [String: String?] = [:]) -> [UInt8] {
        Fixtures.object(
            [
                ("schema", "1"), ("kind", #""retraction""#), ("patient", #""p-000123""#), ("metric", #""heart_rate""#),
                ("day", #""2026-10-01""#), ("version", "1759384503001"), ("reason", #""sample deleted on the phone""#),
            ], overrides)
    }

    @Test func decodesARetraction() throws {
        let event = try Fixtures.decoder.validateEvent(Self.retraction(), recordTimestampMs: 5)
        #expect(
            event
                == .retraction(
                    DailyValueRetraction(
                        patient: "p-000123", metric: "heart_rate", day: "2026-10-01", version: 1_759_384_503_001,
                        reason: "sample deleted on the phone")))
        #expect(event.version == 1_759_384_503_001)
        let value = try Fixtures.decoder.validateEvent(Fixtures.event(), recordTimestampMs: nil)
        guard case .value = value else {
            Issue.record("a DailyValue decoded as \(value)")
            return
        }
        let explicit = try Fixtures.decoder.validateEvent(Fixtures.event(["kind": #""value""#]), recordTimestampMs: nil)
        #expect(explicit == value)
    }

    @Test(arguments: [
        ("no version (never the record timestamp)", ["version": nil], DailyValueError.Kind.missingField, "version"),
        ("version as a string", ["version": #""7""#], .invalidFieldType, "version"),
        ("negative version", ["version": "-1"], .invalidVersion, "version"),
        ("no reason", ["reason": nil], .missingField, "reason"),
        ("blank reason", ["reason": #""  ""#], .invalidReason, "reason"),
        ("control character in the reason", ["reason": #""a\nb""#], .invalidReason, "reason"),
        ("reason over 256 bytes", ["reason": "\"" + String(repeating: "r", count: 257) + "\""], .invalidReason, "reason"),
        ("reason of 258 bytes in 129 characters", ["reason": "\"" + String(repeating: "é", count: 129) + "\""],
         .invalidReason, "reason"),
        ("unknown kind", ["kind": #""delete""#], .invalidKind, "kind"),
        ("kind as a number", ["kind": "1"], .invalidFieldType, "kind"),
        ("unknown metric", ["metric": #""mood""#], .unknownMetric, "metric"),
        ("malformed day", ["day": #""2026-02-30""#], .invalidDay, "day"),
        ("no patient", ["patient": nil], .missingField, "patient"),
        ("schema 2", ["schema": "2"], .schemaVersionUnsupported, "schema"),
    ] as [(String, [String: String?], DailyValueError.Kind, String)])
    func rejects(name: String, overrides: [String: String?], kind: DailyValueError.Kind, field: String) {
        #expect {
            try Fixtures.decoder.validateEvent(Self.retraction(overrides), recordTimestampMs: 1_759_384_503_000)
        } throws: { error in
            (error as? DailyValueError)?.kind == kind && (error as? DailyValueError)?.field == field
        }
    }

    /// `validate` (DailyValues only: the producer library) refuses a retraction, even one that also
    /// carries every member of a value.
    @Test func aRetractionIsNotADailyValue() {
        for bytes in [Self.retraction(), Fixtures.event(["kind": #""retraction""#, "reason": #""x""#])] {
            #expect(throws: DailyValueError(.invalidKind, field: "kind", "a retraction where a DailyValue is due")) {
                try Fixtures.decoder.validate(bytes, recordTimestampMs: nil)
            }
        }
    }

    /// The store record carries the identity, the version, the reason and the id of the day's Observation.
    @Test func mapsToTheDaysRecord() throws {
        guard case .retraction(let retraction) = try Fixtures.decoder.validateEvent(
            Self.retraction(), recordTimestampMs: nil)
        else {
            Issue.record("not a retraction")
            return
        }
        let record = Fixtures.mapper.map(retraction)
        let value = try Fixtures.mapper.map(
            Fixtures.decoder.validate(Fixtures.event(), recordTimestampMs: nil), recordTimestampMs: 0)
        #expect(record.identity == value.identity && record.resourceID == value.resourceID)
        #expect(record.version == 1_759_384_503_001 && record.retractionReason == "sample deleted on the phone")
    }
}
