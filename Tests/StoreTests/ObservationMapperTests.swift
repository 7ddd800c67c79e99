import DailyValueContract
import Foundation
import ObservationMapping
import Testing

@Suite struct ObservationMapperTests {
    let issued = Fixtures.ms("2026-11-01T06:15:03Z")

    /// The clinical value written alone (the worker's version cache compares it before mapping a value of a version
    /// it knows) is byte for byte the record's `clinicalValue`, for every metric (panel, min/max, none).
    @Test(arguments: MetricCatalog.builtin.allMetrics.map(\.key))
    func clinicalValueAloneIsTheRecords(_ key: String) throws {
        let metric = try #require(MetricCatalog.builtin[key])
        let validated = try ValidatedDailyValue(
            validating: ObservationSamples.value(for: metric), catalog: Fixtures.mapper.catalog,
            recordTimestampMs: issued)
        let record = try Fixtures.mapper.map(validated, recordTimestampMs: issued)
        let alone = try #require(Fixtures.mapper.clinicalValueUTF8(of: validated))
        #expect(alone == Array(record.clinicalValueUTF8), "\(String(decoding: alone, as: UTF8.self))")
        #expect(!alone.isEmpty)
    }

    @Test(arguments: MetricCatalog.builtin.allMetrics.map(\.key))
    func mapsEveryCatalogMetric(_ key: String) throws {
        let metric = try #require(MetricCatalog.builtin[key])
        let value = ObservationSamples.value(for: metric)
        let record = try Fixtures.mapper.map(value, recordTimestampMs: issued)
        let json = record.json
        #expect(json["resourceType"] as? String == "Observation")
        #expect(json["id"] as? String == record.resourceID)
        #expect(record.identity == ObservationIdentity(patient: "p-000123", metric: key, day: "2026-10-01"))
        #expect(record.version == 1_759_384_503_000)
        let identifier = try #require((json["identifier"] as? [[String: Any]])?.first)
        #expect(identifier["value"] as? String == "p-000123/\(key)/2026-10-01")
        let code = try #require(json["code"] as? [String: Any])
        let codings = try #require(code["coding"] as? [[String: Any]])
        #expect(codings.map { $0["code"] as? String } == metric.codings.map(\.code))
        #expect(code["text"] as? String == metric.text)
        let category = (json["category"] as? [[String: Any]])?.first?["coding"] as? [[String: Any]]
        #expect(category?.first?["code"] as? String == metric.category?.rawValue)
        let components = json["component"] as? [[String: Any]] ?? []
        if metric.isPanel {
            #expect(json["valueQuantity"] == nil)
            #expect(components.count == 6)  // systolic, diastolic, then each part's minimum and maximum
        } else {
            let quantity = try #require(json["valueQuantity"] as? [String: Any])
            #expect(quantity["code"] as? String == metric.ucum)
            #expect(quantity["system"] as? String == "http://unitsofmeasure.org")
            #expect((quantity["value"] as? NSNumber)?.doubleValue == value.value)
            #expect(components.count == (metric.allowsMinMax ? 2 : 0))
        }
        let period = try #require(json["effectivePeriod"] as? [String: String])
        #expect(period == ["start": "2026-10-01T00:00:00+02:00", "end": "2026-10-02T00:00:00+02:00"])
        #expect(json["issued"] as? String == "2026-11-01T06:15:03.000Z")
        #expect(json["status"] as? String == "final")
        #expect((json["subject"] as? [String: String])?["reference"] == "Patient/p-000123")
        // Issue 12: provenance once (the source extension), no contained Device, no performer, no device name.
        #expect(json["device"] == nil && json["contained"] == nil && json["performer"] == nil)
        #expect(record.resource.contains(#"{"url":"model","valueString":"Watch7,3"}"#))
        #expect(!record.resource.contains(#""valueString":"Apple Watch""#))
        #expect(record.resource.hasPrefix(#"{"resourceType":"Observation","id":""#))
    }

    @Test(arguments: ObservationSamples.days)
    func effectivePeriodIsTheLocalDay(_ day: ObservationSamples.Day) throws {
        let value = ObservationSamples.value(for: MetricCatalog.builtin["heart_rate"]!, day: day.day, zone: day.zone)
        let record = try Fixtures.mapper.map(value, recordTimestampMs: issued)
        #expect(record.resource.contains(#""effectivePeriod":{"start":"\#(day.start)","end":"\#(day.end)"}"#))
        let formatter = ISO8601DateFormatter()
        let hours = formatter.date(from: day.end)!.timeIntervalSince(formatter.date(from: day.start)!) / 3600
        #expect(hours == day.hours)
    }

    @Test func heartRateUsesTheLOINCMinMaxCodesAndOthersUseStatistics() throws {
        let hr = try Fixtures.mapper.map(
            ObservationSamples.value(for: MetricCatalog.builtin["heart_rate"]!), recordTimestampMs: issued)
        #expect(hr.resource.contains(#""code":"8883-1""#) && hr.resource.contains(#""code":"8873-2""#))
        let spo2 = try Fixtures.mapper.map(
            ObservationSamples.value(for: MetricCatalog.builtin["oxygen_saturation"]!), recordTimestampMs: issued)
        #expect(
            spo2.resource.contains(
                #"{"system":"http://terminology.hl7.org/CodeSystem/observation-statistics","code":"minimum"}"#
            ))
        #expect(spo2.resource.contains(#""code":"maximum""#))
    }

    @Test func writesShortestNumbers() throws {
        let value = DailyValue(
            patient: "p", metric: "heart_rate", day: "2026-10-01", zone: .utcOffset(seconds: 0),
            value: 71.4, min: 48, max: 162.25, version: 1)
        let record = try Fixtures.mapper.map(value, recordTimestampMs: issued)
        #expect(record.resource.contains(#""valueQuantity":{"value":71.4,"unit":"beats/minute","#))
        #expect(record.resource.contains(#"{"value":48,"unit""#))
        #expect(record.resource.contains(#"{"value":162.25,"unit""#))
        let steps = DailyValue(
            patient: "p", metric: "steps", day: "2026-10-01", zone: .utcOffset(seconds: 0),
            value: 8432, version: 1)
        #expect(
            try Fixtures.mapper.map(steps, recordTimestampMs: issued).resource
                .contains(
                    #""valueQuantity":{"value":8432,"unit":"steps/day","system":"http://unitsofmeasure.org","code":"/d"}"#
                ))
    }

    @Test(arguments: [
        (0.00001, "0.00001"), (1.5e-7, "0.00000015"), (0.1 + 0.2, "0.30000000000000004"), (999.125, "999.125"),
        (-0.0, "0"), (42, "42"),
    ])
    func numbersNeverUseExponents(_ number: Double, _ rendered: String) throws {
        let value = DailyValue(
            patient: "p", metric: "heart_rate_variability_sdnn", day: "2026-10-01", zone: .utcOffset(seconds: 0),
            value: number, version: 1)
        let record = try Fixtures.mapper.map(value, recordTimestampMs: issued)
        #expect(record.resource.contains(#""valueQuantity":{"value":\#(rendered),"unit":"millisecond""#))
        #expect(Double(rendered) == number)  // round-trips (strtod; Foundation's JSON parser is not exact)
    }

    @Test func statusIsPreliminaryUntilTheGraceAfterTheLocalDayEnds() throws {
        // Bratislava 2026-10-01 ends at 2026-10-01T22:00:00Z; the grace is 6 h.
        let value = ObservationSamples.value(for: MetricCatalog.builtin["steps"]!)
        let before = try Fixtures.mapper.map(value, recordTimestampMs: Fixtures.ms("2026-10-02T03:59:59Z"))
        let at = try Fixtures.mapper.map(value, recordTimestampMs: Fixtures.ms("2026-10-02T04:00:00Z"))
        #expect(before.json["status"] as? String == "preliminary")
        #expect(at.json["status"] as? String == "final")
    }

    @Test func sameInputGivesIdenticalBytes() throws {
        let bytes = Fixtures.event()
        let first = try Fixtures.mapper.map(
            Fixtures.decoder.decode(bytes, recordTimestampMs: nil), recordTimestampMs: issued)
        let otherMapper = try ObservationMapper(configuration: Fixtures.configuration)
        let second = try otherMapper.map(
            Fixtures.decoder.decode(bytes, recordTimestampMs: nil), recordTimestampMs: issued)
        #expect(first == second)
        #expect(first.resource.utf8.elementsEqual(second.resource.utf8))
    }

    @Test func idsAreKeyedHashesWithoutThePatient() throws {
        let identity = ObservationIdentity(patient: "p-000123", metric: "heart_rate", day: "2026-10-01")
        let ids = try ObservationID(key: Fixtures.idKey)
        let id = ids.id(for: identity)
        #expect(id.count == 64)
        #expect(id.allSatisfy { "0123456789abcdef".contains($0) })
        #expect(!id.contains("000123"))
        #expect(ids.id(for: identity) == id)
        #expect(ids.id(for: ObservationIdentity(patient: "p-000123", metric: "heart_rate", day: "2026-10-02")) != id)
        #expect(try ObservationID(key: Array("another-secret-key-0123456789".utf8)).id(for: identity) != id)
        #expect(throws: ObservationMapper.ConfigurationError.self) { try ObservationID(key: Array("short".utf8)) }
        let record = try Fixtures.mapper.map(
            ObservationSamples.value(for: MetricCatalog.builtin["heart_rate"]!), recordTimestampMs: issued)
        #expect(record.resourceID == id)
    }

    /// Known answers from Python's `hmac` module (an independent HMAC-SHA256), including a key longer than a block.
    @Test func idsMatchAnIndependentHMACImplementation() throws {
        let short = try ObservationID(key: Fixtures.idKey)
        #expect(
            short.id(for: ObservationIdentity(patient: "p-000123", metric: "heart_rate", day: "2026-10-01"))
                == "7b773feddee5651aa8610262639297c932225c80b2a649333dd58be1258844c1")
        let long = try ObservationID(key: (0..<100).map(UInt8.init))
        #expect(
            long.id(for: ObservationIdentity(patient: "a", metric: "steps", day: "2026-01-01"))
                == "91f1e02675b1f007eebcc777ac5fda56c8bad1e22b7ae16f60589ab815d9c627")
    }

    @Test func rejectsValuesThatBypassedTheDecoder() throws {
        var value = ObservationSamples.value(for: MetricCatalog.builtin["steps"]!)
        value.metric = "nope"
        #expect(throws: DailyValueError.self) { try Fixtures.mapper.map(value, recordTimestampMs: 0) }
        value.metric = "steps"
        value.day = "2026-02-30"
        #expect(throws: DailyValueError.self) { try Fixtures.mapper.map(value, recordTimestampMs: 0) }
        value.day = "2026-02-03"
        value.zone = .timeZone("Nowhere/City")
        #expect(throws: DailyValueError.self) { try Fixtures.mapper.map(value, recordTimestampMs: 0) }
    }

    @Test func absurdRecordTimestampsStillGiveAValidInstant() throws {
        let value = ObservationSamples.value(for: MetricCatalog.builtin["steps"]!)
        for (timestamp, issued) in [
            (Int64.min, nil), (-1, nil), (0, nil),  // no real instant: no `issued` (issue 28)
            (Int64.max, "9999-12-31T23:59:59.999Z"), (1_759_384_503_007, "2025-10-02T05:55:03.007Z"),
        ] as [(Int64, String?)] {
            let record = try Fixtures.mapper.map(value, recordTimestampMs: timestamp)
            #expect(record.json["issued"] as? String == issued)
        }
        var nan = value
        nan.value = .nan
        #expect(throws: DailyValueError.self) { try Fixtures.mapper.map(nan, recordTimestampMs: 0) }
    }

    @Test func configurationIsValidated() {
        var bad = Fixtures.configuration
        bad.identifierSystem = "not a uri"
        #expect(throws: ObservationMapper.ConfigurationError.self) { try ObservationMapper(configuration: bad) }
        bad = Fixtures.configuration
        bad.finalGraceSeconds = -1
        #expect(throws: ObservationMapper.ConfigurationError.self) { try ObservationMapper(configuration: bad) }
        bad = Fixtures.configuration
        bad.idKey = []
        #expect(throws: ObservationMapper.ConfigurationError.self) { try ObservationMapper(configuration: bad) }
    }
}
