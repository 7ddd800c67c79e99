import DailyValueContract
import Foundation
import ObservationMapping
import Testing

@Suite struct MetricCatalogTests {
    /// The 23 metrics of the terminology reference (issues 12, 28) and the 35 of issue 40.
    static let requiredKeys =
        [
            "heart_rate", "resting_heart_rate", "walking_heart_rate_average", "heart_rate_variability_sdnn",
            "oxygen_saturation", "respiratory_rate", "steps", "distance_walking_running", "active_energy_burned",
            "basal_energy_burned", "flights_climbed", "exercise_time", "body_mass", "body_mass_index", "body_height",
            "body_temperature", "blood_pressure_systolic", "blood_pressure_diastolic", "blood_glucose", "vo2_max",
            "six_minute_walk_distance", "sleep_duration", "blood_pressure",
        ] + [
            "dietary_energy_consumed", "dietary_water", "dietary_protein", "dietary_carbohydrates", "dietary_fat_total",
            "body_fat_percentage", "lean_body_mass", "waist_circumference", "sleep_deep_duration", "sleep_rem_duration",
            "sleep_core_duration", "sleep_awake_duration", "stand_time", "stand_hours", "time_in_daylight",
            "walking_speed", "walking_step_length", "walking_double_support_percentage", "walking_asymmetry_percentage",
            "walking_steadiness", "stair_ascent_speed", "stair_descent_speed", "distance_cycling", "distance_swimming",
            "distance_wheelchair", "push_count", "swimming_stroke_count", "heart_rate_recovery_one_minute",
            "sleeping_wrist_temperature", "environmental_audio_exposure", "headphone_audio_exposure",
            "number_of_times_fallen", "inhaler_usage", "uv_exposure", "cgm_glucose_mean",
        ]

    @Test func builtinHasEveryReferenceMetricAndPassesItsOwnChecks() throws {
        let catalog = MetricCatalog.builtin
        #expect(Set(catalog.metrics.keys) == Set(Self.requiredKeys))
        #expect(catalog.metrics.count == 58 && Self.requiredKeys.count == 58)
        let rebuilt = try MetricCatalog(metrics: catalog.allMetrics)
        #expect(rebuilt.metrics == catalog.metrics)
    }

    @Test func weakLOINCFitsShipTheHealthKitCodingOnly() {
        // Issue 40: and every new metric whose LOINC candidate misses a part (time aspect, method, site) or could
        // not be verified (docs/CLINICAL.md, "Code review").
        for key in [
            "basal_energy_burned", "active_energy_burned",
            "distance_walking_running", "exercise_time", "vo2_max", "six_minute_walk_distance",
            "walking_heart_rate_average", "blood_glucose", "dietary_water", "dietary_protein", "dietary_carbohydrates",
            "dietary_fat_total", "lean_body_mass", "waist_circumference", "sleep_awake_duration", "distance_swimming",
            "push_count", "walking_speed", "sleeping_wrist_temperature",
        ] {
            let codings = MetricCatalog.builtin[key]!.codings
            #expect(codings.first?.system == FHIRCoding.healthKitSystem, "\(key)")
            #expect(!codings.contains { $0.system == FHIRCoding.loincSystem }, "\(key)")
        }
    }

    @Test func verifiedCodesFromTheReference() {
        let c = MetricCatalog.builtin
        // Issue 12: the HealthKit coding only where no LOINC coding names the concept (lean resources).
        #expect(c["heart_rate"]!.codings.map(\.code) == ["8867-4", "41924-2"])
        #expect(c["resting_heart_rate"]!.codings.map(\.code) == ["8867-4", "40443-4"])
        // Issue 28: walking heart rate leaves vital-signs (no LOINC code says "walking"); glucose claims no specimen.
        #expect(
            c["walking_heart_rate_average"]!.codings.map(\.code) == ["HKQuantityTypeIdentifierWalkingHeartRateAverage"])
        #expect(c["walking_heart_rate_average"]!.category == .activity)
        #expect(c["blood_glucose"]!.codings.map(\.code) == ["HKQuantityTypeIdentifierBloodGlucose"])
        #expect(c["blood_glucose"]!.minPlausibleMin == 10)
        #expect(!c["six_minute_walk_distance"]!.codings.contains { $0.code == "64098-7" })
        #expect(c["heart_rate_variability_sdnn"]!.category == .procedure)
        #expect(c["blood_pressure"]!.codings.map(\.code) == ["85354-9", "96607-7"])
        #expect(c["blood_pressure"]!.components.map { $0.codings.first!.code } == ["8480-6", "8462-4"])
        #expect(c["blood_glucose"]!.plausibleMin >= 20)
        #expect(c["heart_rate"]!.minimumCoding?.code == "8883-1" && c["heart_rate"]!.maximumCoding?.code == "8873-2")
        #expect(c["steps"]!.ucum == "/d" && c["steps"]!.codings.first?.code == "41950-7")
        #expect(c["oxygen_saturation"]!.codings.prefix(2).map(\.code) == ["2708-6", "59408-5"])
        #expect(c["oxygen_saturation"]!.conversion(forUnit: "1") == UnitConversion(factor: 100))
        #expect(c["blood_pressure_systolic"]!.codings.first?.code == "8480-6")
        #expect(c["blood_pressure_diastolic"]!.codings.first?.code == "8462-4")
        #expect(c["blood_pressure_diastolic"]!.ucum == "mm[Hg]")
        #expect(c["heart_rate_variability_sdnn"]!.codings.first?.code == "80404-7")
        #expect(c["blood_glucose"]!.category == nil)
        #expect(c["sleep_duration"]!.category == .activity)
        #expect(c["body_height"]!.conversion(forUnit: "[in_i]") == UnitConversion(factor: 2.54))
        #expect(c["body_temperature"]!.conversion(forUnit: "[degF]") == UnitConversion(factor: 5.0 / 9.0, offset: -32))
        // Issue 40: codes whose every part fits a daily statistic.
        #expect(c["flights_climbed"]!.codings.map(\.code) == ["100304-5", "HKQuantityTypeIdentifierFlightsClimbed"])
        #expect(c["cgm_glucose_mean"]!.codings.map(\.code) == ["97507-8"] && c["cgm_glucose_mean"]!.codesAggregation)
        #expect(c["cgm_glucose_mean"]!.category == nil && c["cgm_glucose_mean"]!.ucum == "mg/dL")
        #expect(c["dietary_energy_consumed"]!.codings.map(\.code) == ["75298-0"])
        #expect(c["dietary_energy_consumed"]!.ucum == "kcal/d")  // 75298-0 is a rate (24 hour), as steps' /d
        #expect(c["body_fat_percentage"]!.codings.map(\.code) == ["41982-0"])
        #expect(c["body_fat_percentage"]!.conversion(forUnit: "1") == UnitConversion(factor: 100))
        #expect(
            ["sleep_deep_duration", "sleep_rem_duration", "sleep_core_duration"].map { c[$0]!.codings.map(\.code) }
                == [["93831-6"], ["93829-0"], ["93830-8"]])
        #expect(c["sleep_awake_duration"]!.codings.map(\.code) == ["HKCategoryValueSleepAnalysisAwake"])
        #expect(c["uv_exposure"]!.aggregation == .maximum && c["uv_exposure"]!.methodStatistic == "maximum")
        #expect(
            c["environmental_audio_exposure"]!.ucum == "dB[SPL]"
                && c["headphone_audio_exposure"]!.methodStatistic == nil)
        #expect(c["walking_speed"]!.methodStatistic == "average" && c["steps"]!.methodStatistic == nil)
        // Not a core temperature: not vital-signs, not 8310-5.
        #expect(c["sleeping_wrist_temperature"]!.category == nil)
        // New discrete metrics take no min/max (the size budget, docs/CLINICAL.md "Size").
        let new = Set(Self.requiredKeys.dropFirst(23))
        #expect(c.allMetrics.filter { new.contains($0.key) && $0.allowsMinMax }.isEmpty)
    }

    /// Whether `code` is `digits-checkDigit` with LOINC's mod 10 check digit (the Luhn algorithm).
    static func hasLOINCCheckDigit(_ code: String) -> Bool {
        let parts = code.split(separator: "-")
        let digits = parts.joined().compactMap(\.wholeNumberValue)
        guard parts.count == 2, parts[1].count == 1, digits.count == code.count - 1 else { return false }
        let sum = digits.reversed().enumerated().reduce(0) { sum, next in
            let doubled = next.offset % 2 == 1 ? next.element * 2 : next.element
            return sum + (doubled > 9 ? doubled - 9 : doubled)
        }
        return sum % 10 == 0
    }

    /// Every LOINC code of the built-in catalog (codings, min/max codings, panel components) is well formed and has
    /// the right check digit: a mistyped code cannot ship.
    @Test func everyBuiltinLOINCCodeHasItsCheckDigit() {
        func codings(_ m: Metric) -> [FHIRCoding] {
            m.codings + [m.minimumCoding, m.maximumCoding].compactMap { $0 } + m.components.flatMap(\.codings)
        }
        let loinc = MetricCatalog.builtin.allMetrics.flatMap(codings).filter { $0.system == FHIRCoding.loincSystem }
        #expect(loinc.count >= 30)
        for coding in loinc { #expect(Self.hasLOINCCheckDigit(coding.code), "\(coding.code)") }
        // The rule rejects a wrong check digit, a missing one and a malformed code.
        #expect(!["8867-5", "97507-9", "88674", "8867-", "88-67-4"].contains(where: Self.hasLOINCCheckDigit))
    }

    // MARK: - Override files

    static func write(_ json: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-\(UUID().uuidString).json")
        try Data(json.utf8).write(to: url)
        return url
    }

    @Test func overrideFileChangesAndAddsMetricsWithoutRebuilding() throws {
        let url = try Self.write(
            """
            {"metrics": {
              "heart_rate": {"plausibleMax": 250},
              "distance_walking_running": {"codings": [
                {"system": "http://developer.apple.com/documentation/healthkit",
                 "code": "HKQuantityTypeIdentifierDistanceWalkingRunning", "display": "Walking + Running Distance"},
                {"system": "http://loinc.org", "code": "41953-1", "display": "Walking distance 24 hour Calculated"}]},
              "atrial_fibrillation_burden": {"codings": [{"system": "http://developer.apple.com/documentation/healthkit",
                 "code": "HKQuantityTypeIdentifierAtrialFibrillationBurden", "display": "AFib History"}],
                 "text": "AFib burden", "ucum": "%", "unitDisplay": "%", "aggregation": "latest",
                 "plausibleMin": 0, "plausibleMax": 100, "unitAliases": [{"unit": "1", "factor": 100}]}
            }}
            """)
        defer { try? FileManager.default.removeItem(at: url) }
        let catalog = try MetricCatalog.load(overridesFrom: url)
        #expect(catalog.metrics.count == Self.requiredKeys.count + 1)
        #expect(catalog["heart_rate"]!.plausibleMax == 250)
        #expect(catalog["heart_rate"]!.codings == MetricCatalog.builtin["heart_rate"]!.codings)
        #expect(catalog["distance_walking_running"]!.codings.map(\.code).last == "41953-1")

        let decoder = DailyValueDecoder(catalog: catalog, policy: Fixtures.policy)
        #expect(throws: DailyValueError.self) {
            try decoder.decode(Fixtures.event(["value": "260"]), recordTimestampMs: nil)
        }
        #expect(MetricCatalog.builtin["atrial_fibrillation_burden"] == nil)
        let burden = try decoder.decode(
            Fixtures.event([
                "metric": #""atrial_fibrillation_burden""#, "unit": #""1""#, "value": "0.85", "min": nil, "max": nil,
            ]),
            recordTimestampMs: nil)
        #expect(burden.value == 85)
        let record = try ObservationMapper(configuration: Fixtures.configuration, catalog: catalog)
            .map(burden, recordTimestampMs: 0)
        #expect(record.resource.contains("HKQuantityTypeIdentifierAtrialFibrillationBurden"))
    }

    @Test func exportedCatalogLoadsBackUnchanged() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("export-\(UUID().uuidString).json")
        try MetricCatalog.builtin.exportJSON().write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let loaded = try MetricCatalog.load(overridesFrom: url, base: try MetricCatalog(metrics: []))
        #expect(loaded.metrics == MetricCatalog.builtin.metrics)
    }

    @Test(
        arguments: [
            (#"{"metrics": {"heart_rate": {"plausibleMax": "high"}}}"#, "heart_rate", "plausibleMax"),
            (#"{"metrics": {"heart_rate": {"plausibleMaxx": 250}}}"#, "heart_rate", "unknown field `plausibleMaxx`"),
            (#"{"metrics": {"new_metric": {"text": "x"}}}"#, "new_metric", "needs the field `codings`"),
            (#"{"metrics": {"steps": {"unitAliases": [{"unit": "k", "factor": 0}]}}}"#, "steps", "factor"),
            (#"{"metrics": {"steps": {"plausibleMin": 10, "plausibleMax": 1}}}"#, "steps", "plausibleMin"),
            (
                #"{"metrics": {"steps": {"minimumCoding": {"system": "s:x", "code": "c", "display": "d"}}}}"#, "steps",
                "allowsMinMax"
            ),
            (#"{"metrics": {"Bad Key": {"text": "x"}}}"#, "Bad Key", "codings"),
            (#"{"metrics": {"steps": {"aggregation": "median"}}}"#, "steps", "aggregation"),
            (#"{"metrics": [1, 2]}"#, nil, "metrics"),
            ("not json", nil, "JSON"),
        ] as [(String, String?, String)])
    func badOverrideFileNamesTheFileAndKey(json: String, key: String?, fragment: String) throws {
        let url = try Self.write(json)
        defer { try? FileManager.default.removeItem(at: url) }
        do {
            _ = try MetricCatalog.load(overridesFrom: url)
            Issue.record("accepted \(json)")
        } catch {
            #expect(error.file == url.path)
            #expect(error.key == key, "\(error)")
            #expect(error.description.contains(url.path))
            #expect(error.description.localizedCaseInsensitiveContains(fragment), "\(error)")
        }
    }

    @Test func missingOverrideFileIsAClearError() {
        let url = URL(fileURLWithPath: "/nonexistent/catalog.json")
        #expect(throws: MetricCatalogError.self) { try MetricCatalog.load(overridesFrom: url) }
        do { _ = try MetricCatalog.load(overridesFrom: url) } catch {
            #expect(error.description.contains("/nonexistent/catalog.json"))
        }
    }
}
