import DailyValueContract
import Foundation
import ObservationMapping
import Testing

/// Issue 28 (clinical correctness v3): what a clinician or a FHIR search would still misread. One test per row,
/// each through the real decoder and mapper (docs/CLINICAL.md).
@Suite struct ClinicalCorrectnessTests {
    static let issued = Fixtures.ms("2026-11-01T06:15:03Z")

    /// The Observation of one event given as JSON members over a heart-rate default.
    static func map(_ overrides: [String: String?], recordTimestampMs: Int64 = issued) throws -> [String: Any] {
        let validated = try Fixtures.decoder.validate(Fixtures.event(overrides), recordTimestampMs: nil)
        return try Fixtures.mapper.map(validated, recordTimestampMs: recordTimestampMs).json
    }

    static func codings(_ concept: Any?) -> [String] {
        ((concept as? [String: Any])?["coding"] as? [[String: Any]] ?? []).map {
            "\($0["system"] as? String ?? "")#\($0["code"] as? String ?? "")"
        }
    }

    static func quantity(_ json: [String: Any]) -> Double? {
        ((json["valueQuantity"] as? [String: Any])?["value"] as? NSNumber)?.doubleValue
    }

    // MARK: - Row 1: the panel's min/max components are told apart by code

    @Test func row1PanelMinMaxComponentsCarryDistinctProductCodes() throws {
        let json = try Self.map([
            "metric": "\"blood_pressure\"", "value": nil, "min": nil, "max": nil, "unit": "\"mm[Hg]\"",
            "systolic": #"{"value":128,"min":110,"max":151}"#, "diastolic": #"{"value":82,"min":70,"max":95}"#,
        ])
        let components = try #require(json["component"] as? [[String: Any]])
        #expect(components.count == 6)
        let statistics = components.dropFirst(2).map { Self.codings($0["code"]) }
        let system = "https://fhir.example.org/CodeSystem/daily-statistics"
        let stats = "http://terminology.hl7.org/CodeSystem/observation-statistics"
        #expect(
            statistics == [
                ["\(stats)#minimum", "\(system)#systolic-minimum"], ["\(stats)#maximum", "\(system)#systolic-maximum"],
                ["\(stats)#minimum", "\(system)#diastolic-minimum"],
                ["\(stats)#maximum", "\(system)#diastolic-maximum"],
            ])
        #expect(Set(statistics.map { $0.last! }).count == 4)

        // The deployment names its own CodeSystem (worker --statistics-code-system); it must be an absolute URI.
        var configuration = Fixtures.configuration
        configuration.statisticsCodeSystem = "https://fhir.acme.test/CodeSystem/daily-statistics"
        let panel = ObservationSamples.value(for: MetricCatalog.builtin["blood_pressure"]!)
        let resource = try ObservationMapper(configuration: configuration).map(panel, recordTimestampMs: Self.issued)
        #expect(resource.resource.contains(
            #"{"system":"https://fhir.acme.test/CodeSystem/daily-statistics","code":"diastolic-maximum"}"#))
        configuration.statisticsCodeSystem = "daily statistics"
        #expect(throws: ObservationMapper.ConfigurationError.self) { try ObservationMapper(configuration: configuration) }
    }

    // MARK: - Row 2: walking heart rate is not a vital sign; no `method` on one-a-day values

    @Test func row2WalkingHeartRateLeavesVitalSignsAndOneADayRatesHaveNoMethod() throws {
        let walking = try Self.map(["metric": "\"walking_heart_rate_average\"", "min": nil, "max": nil])
        #expect(
            Self.codings(walking["code"]) == [
                "http://developer.apple.com/documentation/healthkit#HKQuantityTypeIdentifierWalkingHeartRateAverage"
            ])
        #expect(Self.codings((walking["category"] as? [Any])?.first) == [
            "http://terminology.hl7.org/CodeSystem/observation-category#activity"
        ])
        #expect(walking["method"] == nil)
        let resting = try Self.map(["metric": "\"resting_heart_rate\"", "min": nil, "max": nil])
        #expect(Self.codings(resting["code"]) == ["http://loinc.org#8867-4", "http://loinc.org#40443-4"])
        #expect(resting["method"] == nil)
        let daily = try Self.map([:])
        #expect(Self.codings(daily["code"]) == ["http://loinc.org#8867-4", "http://loinc.org#41924-2"])
    }

    // MARK: - Row 3: glucose claims no specimen or method, and is not a laboratory result

    @Test func row3GlucoseClaimsNoSpecimenAndIsNotALaboratoryResult() throws {
        let json = try Self.map(["metric": "\"blood_glucose\"", "value": "104", "min": "71", "max": "163",
                                 "unit": "\"mg/dL\""])
        #expect(
            Self.codings(json["code"]) == [
                "http://developer.apple.com/documentation/healthkit#HKQuantityTypeIdentifierBloodGlucose"
            ])
        #expect(json["category"] == nil)
        let text = try #require((json["code"] as? [String: Any])?["text"] as? String)
        #expect(!text.lowercased().contains("capillary"))
    }

    // MARK: - Row 4: a critically low day minimum is kept

    @Test func row4ACriticallyLowGlucoseMinimumIsKeptWithTheDay() throws {
        let json = try Self.map(["metric": "\"blood_glucose\"", "value": "96", "min": "15", "max": "210",
                                 "unit": "\"mg/dL\""])
        #expect(Self.quantity(json) == 96)
        let minimum = (json["component"] as? [[String: Any]])?.first.map(Self.quantity)
        #expect(minimum == 15)
        // The day's mean keeps its range: a mean of 15 mg/dL is still implausible.
        #expect(throws: DailyValueError(.valueOutOfRange, field: "value", "outside the metric's plausible range")) {
            try Self.map(["metric": "\"blood_glucose\"", "value": "15", "min": nil, "max": nil, "unit": "\"mg/dL\""])
        }
        #expect(throws: DailyValueError(.valueOutOfRange, field: "min", "outside the metric's plausible range")) {
            try Self.map(["metric": "\"blood_glucose\"", "value": "96", "min": "5", "unit": "\"mg/dL\""])
        }
    }

    // MARK: - Row 6: source.model only when it is a hardware model identifier

    @Test(arguments: ["Watch7,3", "iPhone14,5", "iPad13,16", "AudioAccessory5,1"])
    func row6HardwareModelIdentifiersAreKept(_ model: String) throws {
        let validated = try Fixtures.decoder.validate(
            Fixtures.event(["source": #"{"model":"\#(model)"}"#]), recordTimestampMs: nil)
        #expect(validated.event.source?.model == model)
        #expect(validated.omittedSourceFields.isEmpty)
    }

    @Test(arguments: ["Jane Doe's iPhone", "iPhone", "Watch 7,3", "iPhone14,5 Pro", "14,5", "iPhone14,"])
    func row6AnythingElseIsLeftOutAndCounted(_ model: String) throws {
        let validated = try Fixtures.decoder.validate(
            Fixtures.event(["source": #"{"model":"\#(model)","softwareVersion":"11.0"}"#]), recordTimestampMs: nil)
        #expect(validated.event.source == DailyValue.Source(softwareVersion: "11.0"))
        #expect(validated.omittedSourceFields == ["source.model"])
        let resource = try Fixtures.mapper.map(validated, recordTimestampMs: Self.issued).resource
        #expect(!resource.contains(model) && !resource.contains(#""url":"model""#))
    }

    // MARK: - Row 7: converted values keep the precision they were sent with

    @Test func row7ConvertedValuesAreRoundedToTheInputsPrecision() throws {
        let mass = try Self.map(["metric": "\"body_mass\"", "value": "180", "min": nil, "max": nil,
                                 "unit": "\"[lb_av]\""])
        #expect(Self.quantity(mass) == 81.6)
        let finer = try Self.map(["metric": "\"body_mass\"", "value": "180.4", "min": nil, "max": nil,
                                  "unit": "\"[lb_av]\""])
        #expect(Self.quantity(finer) == 81.83)
        let glucose = try Self.map(["metric": "\"blood_glucose\"", "value": "3.9", "min": "3.1", "max": "7.25",
                                    "unit": "\"mmol/L\""])
        #expect(Self.quantity(glucose) == 70)
        let range = (glucose["component"] as? [[String: Any]] ?? []).map(Self.quantity)
        #expect(range == [56, 130.6])
        // Exact conversions are unchanged: 8 h is 480 min, a 0.97 fraction 97 %.
        let sleep = try Self.map(["metric": "\"sleep_duration\"", "value": "8", "min": nil, "max": nil,
                                  "unit": "\"h\""])
        #expect(Self.quantity(sleep) == 480)
        let spo2 = try Self.map(["metric": "\"oxygen_saturation\"", "value": "0.975", "min": "0.91", "max": "1",
                                 "unit": "\"1\""])
        #expect(Self.quantity(spo2) == 97.5)
    }

    // MARK: - Row 8: common unit spellings

    @Test func row8MmHgBpmAndFahrenheitAreAccepted() throws {
        let panel = try Self.map([
            "metric": "\"blood_pressure\"", "value": nil, "min": nil, "max": nil, "unit": "\"mmHg\"",
            "systolic": #"{"value":128}"#, "diastolic": #"{"value":82}"#,
        ])
        let parts = (panel["component"] as? [[String: Any]] ?? []).map {
            ($0["valueQuantity"] as? [String: Any])?["code"] as? String
        }
        #expect(parts == ["mm[Hg]", "mm[Hg]"])
        let systolic = try Self.map(["metric": "\"blood_pressure_systolic\"", "value": "128", "min": nil,
                                     "max": nil, "unit": "\"mmHg\""])
        #expect(Self.quantity(systolic) == 128)
        let rate = try Self.map(["unit": "\"bpm\""])
        #expect(Self.quantity(rate) == 71.4)
        let temperature = try Self.map(["metric": "\"body_temperature\"", "value": "98.6", "min": "97.7",
                                        "max": "100.4", "unit": "\"[degF]\""])
        #expect(Self.quantity(temperature) == 37)
        #expect((temperature["valueQuantity"] as? [String: Any])?["code"] as? String == "Cel")
        let range = (temperature["component"] as? [[String: Any]] ?? []).map(Self.quantity)
        #expect(range == [36.5, 38])
        #expect(throws: DailyValueError(.valueOutOfRange, field: "value", "outside the metric's plausible range")) {
            try Self.map(["metric": "\"body_temperature\"", "value": "37", "min": nil, "max": nil,
                          "unit": "\"[degF]\""])
        }
    }

    // MARK: - Row 9: no `issued` without a real instant

    @Test(arguments: [Int64.min, -1, 0])
    func row9NoIssuedWithoutARecordTimestamp(_ timestamp: Int64) throws {
        let json = try Self.map([:], recordTimestampMs: timestamp)
        #expect(json["issued"] == nil)
        #expect(json["status"] as? String == "preliminary")
    }

    // MARK: - Row 10: device identifiers are stripped before the bundle id's cap

    @Test func row10DeviceSegmentsAreStrippedBeforeTheCap() throws {
        let uuid = "8F2C1A77-0000-4E5B-9D1A-5A5C0B7E4C11"
        for (bundleId, kept) in [
            ("app.\(uuid)", "app"),  // 40 bytes: under the cap
            ("com.example.apps.\(uuid)", "com.example.apps"),  // 53 bytes: over the 48-byte cap before stripping
            ("com.example.0123456789abcdef0123.\(uuid).watchkitapp", "com.example.watchkitapp"),
        ] {
            let validated = try Fixtures.decoder.validate(
                Fixtures.event(["source": #"{"bundleId":"\#(bundleId)"}"#]), recordTimestampMs: nil)
            #expect(validated.event.source?.bundleId == kept, "\(bundleId)")
            #expect(validated.omittedSourceFields.isEmpty, "\(bundleId)")
            let resource = try Fixtures.mapper.map(validated, recordTimestampMs: Self.issued).resource
            #expect(resource.contains(#"{"url":"bundleIdentifier","valueString":"\#(kept)"}"#), "\(bundleId)")
        }
        // Still over the cap once stripped: left out and counted, the value kept.
        let long = String(repeating: "q", count: 49)
        let validated = try Fixtures.decoder.validate(
            Fixtures.event(["source": #"{"bundleId":"\#(long).\#(uuid)"}"#]), recordTimestampMs: nil)
        #expect(validated.event.source == nil)
        #expect(validated.omittedSourceFields == ["source.bundleId"])
    }
}
