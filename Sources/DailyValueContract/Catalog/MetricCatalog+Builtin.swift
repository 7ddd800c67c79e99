// The built-in metric table: the one place to edit codes, units, aggregation and plausible ranges.
// Source: shared/reference/fhir-terminology.md §1 (verified mapping) and §4 (weak fits).
//
// Rules applied here:
// - LOINC first where the reference marks it verified (✅) or an acceptable fit (◐ not listed as weak).
// - Weak or missing LOINC fits (walking HR average, basal/active energy, distance 41953-1, flights 100304-5,
//   exercise 55411-3, VO2max 94122-9): the HealthKit coding only, as §4 advises ("add the LOINC code only after a
//   clinical/terminology review"). A deployment can add them through an override file.
// - Blood pressure: systolic and diastolic are separate metric keys, each mapped to its own Observation (HealthKit
//   reports them as two quantity types with independent daily statistics); there is no panel (85354-9) Observation.
// - Unit aliases convert by a factor only. Affine conversions ([degF] → Cel) and inexact ones (mmol/L glucose, kJ)
//   are not aliases: such events are rejected with `InvalidUnit`.

private typealias Alias = Metric.UnitAlias

extension MetricCatalog {
    /// The built-in catalog: every metric of the terminology reference (22 keys).
    public static let builtin = MetricCatalog(unchecked: builtinMetrics)

    static let builtinMetrics: [Metric] = [
        // MARK: - Vital signs: heart and breathing
        Metric(
            key: "heart_rate",
            codings: [
                .loinc("8867-4", "Heart rate"), .loinc("41924-2", "Heart rate 24 hour mean"),
                .healthKit("HKQuantityTypeIdentifierHeartRate", "Heart Rate"),
            ],
            text: "Heart rate, daily mean", ucum: "/min", unitDisplay: "beats/minute", aggregation: .mean,
            category: .vitalSigns, plausibleMin: 20, plausibleMax: 300, allowsMinMax: true,
            minimumCoding: .loinc("8883-1", "Heart rate 24 hour minimum"),
            maximumCoding: .loinc("8873-2", "Heart rate 24 hour maximum"),
            unitAliases: [Alias(unit: "count/min", factor: 1)]),
        Metric(
            key: "resting_heart_rate",
            codings: [
                .loinc("40443-4", "Heart rate --resting"),
                .healthKit("HKQuantityTypeIdentifierRestingHeartRate", "Resting Heart Rate"),
            ],
            text: "Resting heart rate, daily value", ucum: "/min", unitDisplay: "beats/minute", aggregation: .mean,
            category: .vitalSigns, plausibleMin: 20, plausibleMax: 250, allowsMinMax: true,
            unitAliases: [Alias(unit: "count/min", factor: 1)]),
        Metric(
            key: "walking_heart_rate_average",
            codings: [.healthKit("HKQuantityTypeIdentifierWalkingHeartRateAverage", "Walking Heart Rate Average")],
            text: "Walking heart rate average, daily value", ucum: "/min", unitDisplay: "beats/minute",
            aggregation: .mean, category: .vitalSigns, plausibleMin: 20, plausibleMax: 250, allowsMinMax: true,
            unitAliases: [Alias(unit: "count/min", factor: 1)]),
        Metric(
            key: "heart_rate_variability_sdnn",
            codings: [
                .loinc("80404-7", "R-R interval.standard deviation (Heart rate variability)"),
                .healthKit("HKQuantityTypeIdentifierHeartRateVariabilitySDNN", "Heart Rate Variability SDNN"),
            ],
            text: "Heart rate variability (SDNN), daily mean of short-window readings", ucum: "ms",
            unitDisplay: "millisecond", aggregation: .mean, category: .vitalSigns, plausibleMin: 0,
            plausibleMax: 1000, allowsMinMax: true, unitAliases: [Alias(unit: "s", factor: 1000)]),
        Metric(
            key: "oxygen_saturation",
            codings: [
                .loinc("2708-6", "Oxygen saturation in Arterial blood"),
                .loinc("59408-5", "Oxygen saturation in Arterial blood by Pulse oximetry"),
                .healthKit("HKQuantityTypeIdentifierOxygenSaturation", "Oxygen Saturation"),
            ],
            text: "Oxygen saturation, daily mean", ucum: "%", unitDisplay: "%", aggregation: .mean,
            category: .vitalSigns, plausibleMin: 50, plausibleMax: 100, allowsMinMax: true,
            unitAliases: [Alias(unit: "1", factor: 100)]),
        Metric(
            key: "respiratory_rate",
            codings: [
                .loinc("9279-1", "Respiratory rate"),
                .healthKit("HKQuantityTypeIdentifierRespiratoryRate", "Respiratory Rate"),
            ],
            text: "Respiratory rate, daily mean", ucum: "/min", unitDisplay: "breaths/minute", aggregation: .mean,
            category: .vitalSigns, plausibleMin: 2, plausibleMax: 80, allowsMinMax: true,
            unitAliases: [Alias(unit: "count/min", factor: 1)]),

        // MARK: - Activity: cumulative daily totals
        Metric(
            key: "steps",
            codings: [
                .loinc("41950-7", "Number of steps in 24 hour Measured"),
                .healthKit("HKQuantityTypeIdentifierStepCount", "Step Count"),
            ],
            text: "Steps, daily total", ucum: "/d", unitDisplay: "steps/day", aggregation: .sum, category: .activity,
            plausibleMin: 0, plausibleMax: 200_000,
            unitAliases: [Alias(unit: "count", factor: 1), Alias(unit: "{steps}", factor: 1)]),
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
            unitAliases: [Alias(unit: "count", factor: 1)]),
        Metric(
            key: "exercise_time",
            codings: [.healthKit("HKQuantityTypeIdentifierAppleExerciseTime", "Apple Exercise Time")],
            text: "Exercise time, daily total", ucum: "min", unitDisplay: "minutes", aggregation: .sum,
            category: .activity, plausibleMin: 0, plausibleMax: 1_500,
            unitAliases: [Alias(unit: "h", factor: 60)]),
        Metric(
            key: "sleep_duration",
            codings: [
                .loinc("93832-4", "Sleep duration"),
                .healthKit("HKCategoryTypeIdentifierSleepAnalysis", "Sleep Analysis"),
            ],
            text: "Sleep duration (asleep stages), assigned to the wake-up day", ucum: "min", unitDisplay: "minutes",
            aggregation: .sum, category: .activity, plausibleMin: 0, plausibleMax: 1_500,
            unitAliases: [Alias(unit: "h", factor: 60)]),

        // MARK: - Vital signs: body measurements
        Metric(
            key: "body_mass",
            codings: [.loinc("29463-7", "Body weight"), .healthKit("HKQuantityTypeIdentifierBodyMass", "Body Mass")],
            text: "Body weight, latest of the day", ucum: "kg", unitDisplay: "kg", aggregation: .latest,
            category: .vitalSigns, plausibleMin: 0.2, plausibleMax: 650,
            unitAliases: [Alias(unit: "g", factor: 0.001), Alias(unit: "[lb_av]", factor: 0.45359237)]),
        Metric(
            key: "body_mass_index",
            codings: [
                .loinc("39156-5", "Body mass index (BMI) [Ratio]"),
                .healthKit("HKQuantityTypeIdentifierBodyMassIndex", "Body Mass Index"),
            ],
            text: "Body mass index, latest of the day", ucum: "kg/m2", unitDisplay: "kg/m2", aggregation: .latest,
            category: .vitalSigns, plausibleMin: 5, plausibleMax: 200,
            unitAliases: [Alias(unit: "count", factor: 1)]),
        Metric(
            key: "body_height",
            codings: [.loinc("8302-2", "Body height"), .healthKit("HKQuantityTypeIdentifierHeight", "Height")],
            text: "Body height, latest of the day", ucum: "cm", unitDisplay: "cm", aggregation: .latest,
            category: .vitalSigns, plausibleMin: 20, plausibleMax: 300,
            unitAliases: [Alias(unit: "m", factor: 100), Alias(unit: "[in_i]", factor: 2.54)]),
        Metric(
            key: "body_temperature",
            codings: [
                .loinc("8310-5", "Body temperature"),
                .healthKit("HKQuantityTypeIdentifierBodyTemperature", "Body Temperature"),
            ],
            text: "Body temperature, daily mean", ucum: "Cel", unitDisplay: "degrees C", aggregation: .mean,
            category: .vitalSigns, plausibleMin: 25, plausibleMax: 45, allowsMinMax: true),
        Metric(
            key: "blood_pressure_systolic",
            codings: [
                .loinc("8480-6", "Systolic blood pressure"),
                .healthKit("HKQuantityTypeIdentifierBloodPressureSystolic", "Blood Pressure Systolic"),
            ],
            text: "Systolic blood pressure, daily mean", ucum: "mm[Hg]", unitDisplay: "mmHg", aggregation: .mean,
            category: .vitalSigns, plausibleMin: 40, plausibleMax: 300, allowsMinMax: true),
        Metric(
            key: "blood_pressure_diastolic",
            codings: [
                .loinc("8462-4", "Diastolic blood pressure"),
                .healthKit("HKQuantityTypeIdentifierBloodPressureDiastolic", "Blood Pressure Diastolic"),
            ],
            text: "Diastolic blood pressure, daily mean", ucum: "mm[Hg]", unitDisplay: "mmHg", aggregation: .mean,
            category: .vitalSigns, plausibleMin: 20, plausibleMax: 200, allowsMinMax: true),

        // MARK: - Laboratory
        Metric(
            key: "blood_glucose",
            codings: [
                .loinc("41653-7", "Glucose [Mass/volume] in Capillary blood by Glucometer"),
                .healthKit("HKQuantityTypeIdentifierBloodGlucose", "Blood Glucose"),
            ],
            text: "Blood glucose (capillary), daily mean", ucum: "mg/dL", unitDisplay: "mg/dL", aggregation: .mean,
            category: .laboratory, plausibleMin: 10, plausibleMax: 1_500, allowsMinMax: true),

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
                .loinc("64098-7", "Walking distance 6 minutes"),
                .healthKit("HKQuantityTypeIdentifierSixMinuteWalkTestDistance", "Six-Minute Walk Test Distance"),
            ],
            text: "Six-minute walk distance (weekly estimate), latest", ucum: "m", unitDisplay: "m",
            aggregation: .latest, category: .activity, plausibleMin: 1, plausibleMax: 2_000,
            unitAliases: [Alias(unit: "km", factor: 1000)]),
    ]
}
