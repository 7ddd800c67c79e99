import DailyValueContract
import Foundation
import ObservationMapping
import Testing

/// The optional `status` of a DailyValue (docs/LIFECYCLE.md): decoded, written back, and mapped as sent; absent, the
/// mapper derives it from the record timestamp against the local day's end plus `finalGraceSeconds`.
@Suite struct EventStatusTests {
    /// Bratislava 2026-10-01 ends at 2026-10-01T22:00:00Z; the grace is 6 h, so final from 04:00Z on the 2nd.
    static let duringTheDay = Fixtures.ms("2026-10-01T12:00:00Z")
    static let pastTheGrace = Fixtures.ms("2026-10-03T00:00:00Z")

    @Test(arguments: [
        (#""preliminary""#, DailyValue.Status.preliminary), (#""final""#, .final), ("null", nil),
    ] as [(String, DailyValue.Status?)])
    func decodesTheStatus(json: String, expected: DailyValue.Status?) throws {
        let value = try Fixtures.decoder.decode(Fixtures.event(["status": json]), recordTimestampMs: nil)
        #expect(value.status == expected)
        #expect(try Fixtures.decoder.decode(Fixtures.event(), recordTimestampMs: nil).status == nil)
    }

    @Test(arguments: [
        (#""amended""#, DailyValueError.Kind.invalidStatus), (#""Final""#, .invalidStatus),
        (#""entered-in-error""#, .invalidStatus), ("1", .invalidFieldType), ("true", .invalidFieldType),
    ])
    func rejectsAnyOtherStatus(json: String, kind: DailyValueError.Kind) {
        #expect {
            try Fixtures.decoder.decode(Fixtures.event(["status": json]), recordTimestampMs: nil)
        } throws: { error in
            (error as? DailyValueError)?.kind == kind && (error as? DailyValueError)?.field == "status"
        }
    }

    @Test(arguments: DailyValue.Status.allCases)
    func jsonLineRoundTripsTheStatus(status: DailyValue.Status) throws {
        var value = try Fixtures.decoder.decode(Fixtures.event(), recordTimestampMs: nil)
        value.status = status
        let line = value.jsonLine()
        #expect(line.contains(#""status":"\#(status.rawValue)""#))
        #expect(try Fixtures.decoder.decode(Array(line.utf8), recordTimestampMs: nil) == value)
    }

    /// The event's status wins over the derived one in both directions.
    @Test func theMapperEmitsTheStatusAsSent() throws {
        let preliminary = try mapped(["status": #""preliminary""#], at: Self.pastTheGrace)
        #expect(preliminary.status == .preliminary && preliminary.json["status"] as? String == "preliminary")
        let final = try mapped(["status": #""final""#], at: Self.duringTheDay)
        #expect(final.status == .final && final.json["status"] as? String == "final")
    }

    /// The default when absent: preliminary until the local day's end plus the grace, final from then on.
    @Test func absentTheStatusIsDerivedFromTheRecordTimestamp() throws {
        #expect(try mapped([:], at: Self.duringTheDay).status == .preliminary)
        #expect(try mapped([:], at: Fixtures.ms("2026-10-02T03:59:59Z")).status == .preliminary)
        #expect(try mapped([:], at: Fixtures.ms("2026-10-02T04:00:00Z")).status == .final)
        #expect(try mapped(["status": "null"], at: Self.pastTheGrace).status == .final)
    }

    /// The record's parts put together give the mapped resource, and its clinical value is the value part only.
    @Test func theStatusSlotAndTheClinicalValue() throws {
        let record = try mapped([:], at: Self.pastTheGrace)
        #expect(record.resourceTail.hasSuffix(#""status":"#))
        #expect(record.resourceAfterStatus.hasPrefix(#","category":"#))
        #expect(record.resource == record.resourceHead + record.resourceTail + #""final""# + record.resourceAfterStatus)
        #expect(record.resource(status: .amended).contains(#""status":"amended","category""#))
        #expect(record.clinicalValue.hasPrefix(#","valueQuantity":{"value":71.4,"#))
        #expect(record.resource.hasSuffix(record.clinicalValue + "}"))
        // `issued` (the record timestamp) is not part of the value: the same value later compares equal.
        #expect(try mapped([:], at: Self.pastTheGrace + 1000).clinicalValue == record.clinicalValue)
        #expect(try mapped(["value": "72"], at: Self.pastTheGrace).clinicalValue != record.clinicalValue)
    }

    private func mapped(_ overrides: [String: String?], at timestampMs: Int64) throws -> ObservationRecord {
        let value = try Fixtures.decoder.decode(Fixtures.event(overrides), recordTimestampMs: nil)
        return try Fixtures.mapper.map(value, recordTimestampMs: timestampMs)
    }
}
