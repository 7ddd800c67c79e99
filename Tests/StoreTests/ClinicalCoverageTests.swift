import DailyValueContract
import Foundation
import Testing

/// Issue 40 (clinical v4): what a clinician reads for the new metrics, each through the real decoder and mapper
/// (docs/CLINICAL.md, "Code review (issue 40)"). The helpers are ``ClinicalCorrectnessTests``'.
@Suite struct ClinicalCoverageTests {
    typealias C = ClinicalCorrectnessTests
    static let loinc = "http://loinc.org#"
    static let healthKit = "http://developer.apple.com/documentation/healthkit#"
    static let statistics = "http://terminology.hl7.org/CodeSystem/observation-statistics#"

    /// The Observation of a single-value event of `metric` (no min/max).
    static func map(_ metric: String, _ value: String, unit: String?) throws -> [String: Any] {
        try C.map(["metric": "\"\(metric)\"", "value": value, "min": nil, "max": nil, "unit": unit.map { "\"\($0)\"" }])
    }

    static func unit(_ json: [String: Any]) -> String? { (json["valueQuantity"] as? [String: Any])?["code"] as? String }

    // MARK: - How the day was aggregated is stated once

    @Test func theUVIndexStatesItsDailyMaximumAndAudioItsLAeqWithoutAMean() throws {
        let uv = try Self.map("uv_exposure", "7", unit: nil)
        #expect(C.codings(uv["method"]) == [Self.statistics + "maximum"])
        #expect(Self.unit(uv) == "{index}" && uv["category"] == nil)
        let audio = try Self.map("environmental_audio_exposure", "72.5", unit: "dBASPL")
        #expect(audio["method"] == nil)
        #expect(Self.unit(audio) == "dB[SPL]" && C.quantity(audio) == 72.5)
        #expect(((audio["code"] as? [String: Any])?["text"] as? String)?.contains("LAeq") == true)
        let speed = try Self.map("walking_speed", "4.5", unit: "km/h")
        #expect(C.codings(speed["method"]) == [Self.statistics + "average"])
        #expect(C.quantity(speed) == 1.25 && Self.unit(speed) == "m/s")
        // A sum names no method.
        #expect(try Self.map("stand_time", "95", unit: "min")["method"] == nil)
    }

    // MARK: - Codes whose every part fits a day; the HealthKit code elsewhere

    @Test func sleepStagesCarryTheirLOINCCodesAndAwakeTimeApplesOwn() throws {
        let expected = [
            "sleep_deep_duration": [Self.loinc + "93831-6"], "sleep_rem_duration": [Self.loinc + "93829-0"],
            "sleep_core_duration": [Self.loinc + "93830-8"],
            "sleep_awake_duration": [Self.healthKit + "HKCategoryValueSleepAnalysisAwake"],
        ]
        for (key, codes) in expected {
            let json = try Self.map(key, "1.5", unit: "h")
            #expect(C.codings(json["code"]) == codes, "\(key)")
            #expect(C.quantity(json) == 90 && Self.unit(json) == "min", "\(key)")
            #expect(
                C.codings((json["category"] as? [Any])?.first) == [
                    "http://terminology.hl7.org/CodeSystem/observation-category#activity"
                ])
        }
    }

    @Test func theCGMMeanIsInterstitialAndNoLabResultWhileTheWristIsNoCoreTemperature() throws {
        let cgm = try Self.map("cgm_glucose_mean", "7.2", unit: "mmol/L")
        #expect(C.codings(cgm["code"]) == [Self.loinc + "97507-8"])
        #expect(cgm["category"] == nil && cgm["method"] == nil)
        #expect(C.quantity(cgm) == 130 && Self.unit(cgm) == "mg/dL")  // ±0.1 mmol/L = 1.8 mg/dL: whole mg/dL
        #expect(throws: DailyValueError.self) {  // no daily extremes for the CGM mean (the IG defines none)
            try C.map([
                "metric": "\"cgm_glucose_mean\"", "value": "130", "min": "70", "max": "210", "unit": "\"mg/dL\"",
            ])
        }
        let wrist = try Self.map("sleeping_wrist_temperature", "95.9", unit: "[degF]")
        #expect(C.codings(wrist["code"]) == [Self.healthKit + "HKQuantityTypeIdentifierAppleSleepingWristTemperature"])
        #expect(wrist["category"] == nil && C.quantity(wrist) == 35.5)
    }

    @Test func flightsCarry100304_5AndDietaryEnergyIsA24HourRate() throws {
        let flights = try Self.map("flights_climbed", "12", unit: nil)
        #expect(
            C.codings(flights["code"]) == [
                Self.loinc + "100304-5", Self.healthKit + "HKQuantityTypeIdentifierFlightsClimbed",
            ])
        let energy = try Self.map("dietary_energy_consumed", "2150", unit: "kcal")
        #expect(C.codings(energy["code"]) == [Self.loinc + "75298-0"])
        #expect(Self.unit(energy) == "kcal/d" && C.quantity(energy) == 2150 && energy["category"] == nil)
        #expect(throws: DailyValueError.self) { try Self.map("dietary_energy_consumed", "9000", unit: "kJ") }
        let waist = try Self.map("waist_circumference", "34", unit: "[in_i]")
        #expect(C.codings(waist["code"]) == [Self.healthKit + "HKQuantityTypeIdentifierWaistCircumference"])
        #expect(C.quantity(waist) == 86)
    }

    // MARK: - HealthKit percentages are fractions

    @Test func percentagesTakeTheFractionAsUnitOneAndRejectItAsPercentWherePhysiologyCan() throws {
        let fat = try Self.map("body_fat_percentage", "0.215", unit: "1")
        #expect(C.quantity(fat) == 21.5 && Self.unit(fat) == "%")
        #expect(C.codings(fat["code"]) == [Self.loinc + "41982-0"] && fat["category"] == nil)
        for key in ["body_fat_percentage", "walking_double_support_percentage", "walking_steadiness"] {
            #expect(throws: DailyValueError(.valueOutOfRange, field: "value", "outside the metric's plausible range")) {
                try Self.map(key, "0.28", unit: "%")
            }
        }
        // Units that are not universal are required.
        #expect(throws: DailyValueError.self) { try Self.map("walking_step_length", "68", unit: nil) }
        #expect(try C.quantity(Self.map("number_of_times_fallen", "1", unit: nil)) == 1)
    }
}
