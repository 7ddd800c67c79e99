// The built-in metric table: the one place to edit codes, units, aggregation and plausible ranges.
// Source: shared/reference/fhir-terminology.md §1 (verified mapping) and §4 (weak fits).
//
// Rules applied here:
// - LOINC first where the reference marks it verified (✅) or an acceptable fit (◐ not listed as weak) and the code
//   claims nothing the event does not carry (issue 28: glucose has no verified code without a specimen or method).
// - Weak or missing LOINC fits (walking HR average, glucose, basal/active energy, distance 41953-1, flights 100304-5,
//   exercise 55411-3, VO2max 94122-9): the HealthKit coding only, as §4 advises ("add the LOINC code only after a
//   clinical/terminology review"). A deployment can add them through an override file.
// - Blood pressure: one panel metric `blood_pressure` (85354-9 + 96607-7, components 8480-6/96608-5 and
//   8462-4/96609-3, see docs/CLINICAL.md). The separate systolic/diastolic keys stay for producers that already send
//   them (deprecated; valid stand-alone vital signs); the generator sends mostly the panel, the pair rarely.
// - `unitOptional` only where one unit is universal (step and flight counts, heart and breathing rates per minute);
//   every other event without `unit` is rejected with `MissingUnit`.
// - Means: HealthKit's daily average is coded by a specific LOINC where one exists (41924-2, 96607-7); the mapper
//   writes `method` = observation-statistics#average for every other `mean` metric (`codesAggregation` false).
//   Resting and walking heart rate are one value a day that Apple computes (its code and `code.text` say so):
//   `codesAggregation` true, no `method` (issue 28).
// - Walking heart rate: HealthKit code only, category activity (no LOINC code says "walking"; with 8867-4 in
//   vital-signs, `code=8867-4` returned three values for one day).
// - Per-field bounds: `minPlausibleMin` where a day's minimum is plausibly below any plausible mean (glucose).
// - Resting and walking heart rate take no min/max: Apple writes about one value a day (reference §1).
// - Lean resources (≤ 1,600 bytes): the HealthKit coding only where no LOINC coding names the concept fully.
// - Unit aliases convert by a factor, and [degF] → Cel by (F − 32) × 5/9; converted values keep the precision they
//   were sent with (UnitConversion). kJ is not an alias (`InvalidUnit`). `mmHg` and `bpm` are exact spellings of
//   mm[Hg] and /min. Glucose mmol/L converts by the molar mass of glucose (180.156 g/mol).

private typealias Alias = Metric.UnitAlias

extension MetricCatalog {
    /// The built-in catalog: every metric of the terminology reference (23 keys).
    public static let builtin = MetricCatalog(unchecked: builtinMetrics)

    static let builtinMetrics: [Metric] = [
        // MARK: - Vital signs: heart and breathing
        Metric(
            key: "heart_rate",
            codings: [
                .loinc("8867-4", "Heart rate"), .loinc("41924-2", "Heart rate 24 hour mean"),
            ],
            text: "Heart rate, daily mean", ucum: "/min", unitDisplay: "beats/minute", aggregation: .mean,
            category: .vitalSigns, plausibleMin: 20, plausibleMax: 300, allowsMinMax: true,
            minimumCoding: .loinc("8883-1", "Heart rate 24 hour minimum"),
            maximumCoding: .loinc("8873-2", "Heart rate 24 hour maximum"),
            unitAliases: [Alias(unit: "count/min", factor: 1), Alias(unit: "bpm", factor: 1)], unitOptional: true,
            codesAggregation: true),
        Metric(
            key: "resting_heart_rate",
            codings: [
                .loinc("8867-4", "Heart rate"), .loinc("40443-4", "Heart rate --resting"),
            ],
            text: "Resting heart rate, daily value", ucum: "/min", unitDisplay: "beats/minute", aggregation: .mean,
            category: .vitalSigns, plausibleMin: 20, plausibleMax: 250,
            unitAliases: [Alias(unit: "count/min", factor: 1), Alias(unit: "bpm", factor: 1)], unitOptional: true,
            codesAggregation: true),
        Metric(
            key: "walking_heart_rate_average",
            codings: [.healthKit("HKQuantityTypeIdentifierWalkingHeartRateAverage", "Walking Heart Rate Average")],
            text: "Walking heart rate average, daily value", ucum: "/min", unitDisplay: "beats/minute",
            aggregation: .mean, category: .activity, plausibleMin: 20, plausibleMax: 250,
            unitAliases: [Alias(unit: "count/min", factor: 1), Alias(unit: "bpm", factor: 1)], unitOptional: true,
            codesAggregation: true),
        Metric(
            key: "heart_rate_variability_sdnn",
            codings: [
                .loinc("80404-7", "R-R interval.standard deviation (Heart rate variability)")
            ],
            text: "Heart rate variability (SDNN), daily mean of short-window readings", ucum: "ms",
            unitDisplay: "millisecond", aggregation: .mean, category: .procedure, plausibleMin: 0,
            plausibleMax: 1000, allowsMinMax: true, unitAliases: [Alias(unit: "s", factor: 1000)]),
        Metric(
            key: "oxygen_saturation",
            codings: [
                .loinc("2708-6", "Oxygen saturation in Arterial blood"),
                .loinc("59408-5", "Oxygen saturation in Arterial blood by Pulse oximetry"),
            ],
            text: "Oxygen saturation, daily mean", ucum: "%", unitDisplay: "%", aggregation: .mean,
            category: .vitalSigns, plausibleMin: 50, plausibleMax: 100, allowsMinMax: true,
            unitAliases: [Alias(unit: "1", factor: 100)]),
        Metric(
            key: "respiratory_rate",
            codings: [
                .loinc("9279-1", "Respiratory rate")
            ],
            text: "Respiratory rate, daily mean", ucum: "/min", unitDisplay: "breaths/minute", aggregation: .mean,
            category: .vitalSigns, plausibleMin: 2, plausibleMax: 80, allowsMinMax: true,
            unitAliases: [Alias(unit: "count/min", factor: 1)], unitOptional: true),

        // MARK: - Activity: cumulative daily totals
        Metric(
            key: "steps",
            codings: [
                .loinc("41950-7", "Number of steps in 24 hour Measured")
            ],
            text: "Steps, daily total", ucum: "/d", unitDisplay: "steps/day", aggregation: .sum, category: .activity,
            plausibleMin: 0, plausibleMax: 200_000,
            unitAliases: [Alias(unit: "count", factor: 1), Alias(unit: "{steps}", factor: 1)], unitOptional: true),
        Metric(
            key: "distance_walking_running",
            codings: [.healthKit("HKQuantityTypeIdentifierDistanceWalkingRunning", "Walking + Running Distance")],
            text: "Walking and running distance, daily total", ucum: "m", unitDisplay: "m", aggregation: .sum,
            category: .activity, plausibleMin: 0, plausibleMax: 500_000,
            unitAliases: [Alias(unit: "km", factor: 1000)]),
        Metric(
            key: "active_energy_burned",
            codings: [.healthKit("HKQuantityTypeIdentifierActiveEnergyBurned", "Active Energy Burned")],
            text: "Active energy burned, daily total", ucum: "kcal", unitDisplay: "kcal", aggregation: .sum,
            category: .activity, plausibleMin: 0, plausibleMax: 20_000),
        Metric(
            key: "basal_energy_burned",
            codings: [.healthKit("HKQuantityTypeIdentifierBasalEnergyBurned", "Basal Energy Burned")],
            text: "Basal energy burned, daily total", ucum: "kcal", unitDisplay: "kcal", aggregation: .sum,
            category: .activity, plausibleMin: 0, plausibleMax: 10_000),
        Metric(
            key: "flights_climbed",
            codings: [.healthKit("HKQuantityTypeIdentifierFlightsClimbed", "Flights Climbed")],
            text: "Flights climbed, daily total", ucum: "{#}", unitDisplay: "flights", aggregation: .sum,
            category: .activity, plausibleMin: 0, plausibleMax: 2_000,
            unitAliases: [Alias(unit: "count", factor: 1)], unitOptional: true),
        Metric(
            key: "exercise_time",
            codings: [.healthKit("HKQuantityTypeIdentifierAppleExerciseTime", "Apple Exercise Time")],
            text: "Exercise time, daily total", ucum: "min", unitDisplay: "minutes", aggregation: .sum,
            category: .activity, plausibleMin: 0, plausibleMax: 1_500,
            unitAliases: [Alias(unit: "h", factor: 60)]),
        Metric(
            key: "sleep_duration",
            codings: [
                .loinc("93832-4", "Sleep duration")
            ],
            text: "Sleep duration (asleep stages), assigned to the wake-up day", ucum: "min", unitDisplay: "minutes",
            aggregation: .sum, category: .activity, plausibleMin: 0, plausibleMax: 1_500,
            unitAliases: [Alias(unit: "h", factor: 60)]),

        // MARK: - Vital signs: body measurements
        Metric(
            key: "body_mass",
            codings: [.loinc("29463-7", "Body weight")],
            text: "Body weight, latest of the day", ucum: "kg", unitDisplay: "kg", aggregation: .latest,
            category: .vitalSigns, plausibleMin: 0.2, plausibleMax: 650,
            unitAliases: [Alias(unit: "g", factor: 0.001), Alias(unit: "[lb_av]", factor: 0.45359237)]),
        Metric(
            key: "body_mass_index",
            codings: [
                .loinc("39156-5", "Body mass index (BMI) [Ratio]")
            ],
            text: "Body mass index, latest of the day", ucum: "kg/m2", unitDisplay: "kg/m2", aggregation: .latest,
            category: .vitalSigns, plausibleMin: 5, plausibleMax: 200,
            unitAliases: [Alias(unit: "count", factor: 1)]),
        Metric(
            key: "body_height",
            codings: [.loinc("8302-2", "Body height")],
            text: "Body height, latest of the day", ucum: "cm", unitDisplay: "cm", aggregation: .latest,
            category: .vitalSigns, plausibleMin: 20, plausibleMax: 300,
            unitAliases: [Alias(unit: "m", factor: 100), Alias(unit: "[in_i]", factor: 2.54)]),
        Metric(
            key: "body_temperature",
            codings: [
                .loinc("8310-5", "Body temperature")
            ],
            text: "Body temperature, daily mean", ucum: "Cel", unitDisplay: "degrees C", aggregation: .mean,
            category: .vitalSigns, plausibleMin: 25, plausibleMax: 45, allowsMinMax: true,
            unitAliases: [Alias(unit: "[degF]", factor: 5.0 / 9.0, offset: -32)]),
        Metric(
            key: "blood_pressure_systolic",
            codings: [
                .loinc("8480-6", "Systolic blood pressure")
            ],
            text: "Systolic blood pressure, daily mean (deprecated: send blood_pressure)", ucum: "mm[Hg]",
            unitDisplay: "mmHg", aggregation: .mean,
            category: .vitalSigns, plausibleMin: 40, plausibleMax: 300, allowsMinMax: true,
            unitAliases: [Alias(unit: "mmHg", factor: 1)]),
        Metric(
            key: "blood_pressure_diastolic",
            codings: [
                .loinc("8462-4", "Diastolic blood pressure")
            ],
            text: "Diastolic blood pressure, daily mean (deprecated: send blood_pressure)", ucum: "mm[Hg]",
            unitDisplay: "mmHg", aggregation: .mean,
            category: .vitalSigns, plausibleMin: 20, plausibleMax: 200, allowsMinMax: true,
            unitAliases: [Alias(unit: "mmHg", factor: 1)]),
        Metric(
            key: "blood_pressure",
            codings: [
                .loinc("85354-9", "Blood pressure panel with all children optional"),
                .loinc("96607-7", "Blood pressure panel mean systolic and mean diastolic"),
            ],
            text: "Blood pressure, daily mean", ucum: "mm[Hg]", unitDisplay: "mmHg", aggregation: .mean,
            category: .vitalSigns, plausibleMin: 20, plausibleMax: 300, allowsMinMax: true,
            unitAliases: [Alias(unit: "mmHg", factor: 1)],
            components: [
                Metric.Component(
                    key: "systolic",
                    codings: [
                        .loinc("8480-6", "Systolic blood pressure"), .loinc("96608-5", "Systolic blood pressure mean"),
                    ],
                    plausibleMin: 40, plausibleMax: 300),
                Metric.Component(
                    key: "diastolic",
                    codings: [
                        .loinc("8462-4", "Diastolic blood pressure"),
                        .loinc("96609-3", "Diastolic blood pressure mean"),
                    ],
                    plausibleMin: 20, plausibleMax: 200),
            ], codesAggregation: true),

        // MARK: - Home glucose readings (meter or CGM): no category, no specimen claimed (docs/CLINICAL.md)
        Metric(
            key: "blood_glucose",
            codings: [.healthKit("HKQuantityTypeIdentifierBloodGlucose", "Blood Glucose")],
            text: "Glucose, daily mean of home readings (meter or CGM)", ucum: "mg/dL", unitDisplay: "mg/dL",
            aggregation: .mean, category: nil, plausibleMin: 20, plausibleMax: 1_500, minPlausibleMin: 10,
            allowsMinMax: true, unitAliases: [Alias(unit: "mmol/L", factor: 18.0156)]),

        // MARK: - Activity: fitness estimates
        Metric(
            key: "vo2_max",
            codings: [.healthKit("HKQuantityTypeIdentifierVO2Max", "VO2 Max")],
            text: "VO2 max (Apple estimate), latest of the day", ucum: "mL/kg/min", unitDisplay: "mL/kg/min",
            aggregation: .latest, category: .activity, plausibleMin: 5, plausibleMax: 100,
            unitAliases: [Alias(unit: "ml/kg/min", factor: 1)]),
        Metric(
            key: "six_minute_walk_distance",
            codings: [
                .healthKit("HKQuantityTypeIdentifierSixMinuteWalkTestDistance", "Six-Minute Walk Test Distance")
            ],
            text: "Six-minute walk distance, Apple Watch estimate (not the clinical test), latest", ucum: "m",
            unitDisplay: "m",
            aggregation: .latest, category: .activity, plausibleMin: 1, plausibleMax: 2_000,
            unitAliases: [Alias(unit: "km", factor: 1000)]),
    ]
}
