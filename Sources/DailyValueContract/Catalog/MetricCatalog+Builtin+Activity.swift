// Built-in metrics: daily activity totals (rules in MetricCatalog+Builtin.swift). Every one is HealthKit's
// cumulative sum over the local day.

private typealias Alias = Metric.UnitAlias

extension MetricCatalog {
    /// Steps, distances, pushes and strokes, energy, flights, exercise, stand time and hours, time in daylight.
    static let builtinActivity: [Metric] = [
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
        // 100304-5 "Flights climbed [#] Reporting Period": a count over a reporting period, here the local day
        // (HealthKitOnFHIR, Stanford's LOINC.swift and an Athena/OMOP LOINC row agree on code and name).
        Metric(
            key: "flights_climbed",
            codings: [
                .loinc("100304-5", "Flights climbed [#] Reporting Period"),
                .healthKit("HKQuantityTypeIdentifierFlightsClimbed", "Flights Climbed"),
            ],
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
            key: "distance_cycling",
            codings: [.healthKit("HKQuantityTypeIdentifierDistanceCycling", "Cycling Distance")],
            text: "Cycling distance, daily total", ucum: "m", unitDisplay: "m", aggregation: .sum,
            category: .activity, plausibleMin: 0, plausibleMax: 1_000_000,
            unitAliases: [Alias(unit: "km", factor: 1000)]),
        Metric(
            key: "distance_swimming",
            codings: [.healthKit("HKQuantityTypeIdentifierDistanceSwimming", "Swimming Distance")],
            text: "Swimming distance, daily total", ucum: "m", unitDisplay: "m", aggregation: .sum,
            category: .activity, plausibleMin: 0, plausibleMax: 100_000, unitAliases: [Alias(unit: "km", factor: 1000)]),
        Metric(
            key: "swimming_stroke_count",
            codings: [.healthKit("HKQuantityTypeIdentifierSwimmingStrokeCount", "Swimming Stroke Count")],
            text: "Swimming strokes, daily total", ucum: "{#}", unitDisplay: "strokes", aggregation: .sum,
            category: .activity, plausibleMin: 0, plausibleMax: 100_000,
            unitAliases: [Alias(unit: "count", factor: 1)], unitOptional: true),
        Metric(
            key: "distance_wheelchair",
            codings: [.healthKit("HKQuantityTypeIdentifierDistanceWheelchair", "Wheelchair Distance")],
            text: "Wheelchair distance, daily total", ucum: "m", unitDisplay: "m", aggregation: .sum,
            category: .activity, plausibleMin: 0, plausibleMax: 500_000, unitAliases: [Alias(unit: "km", factor: 1000)]),
        Metric(
            key: "push_count",
            codings: [.healthKit("HKQuantityTypeIdentifierPushCount", "Wheelchair Push Count")],
            text: "Wheelchair pushes, daily total", ucum: "{#}", unitDisplay: "pushes", aggregation: .sum,
            category: .activity, plausibleMin: 0, plausibleMax: 100_000,
            unitAliases: [Alias(unit: "count", factor: 1)], unitOptional: true),
        Metric(
            key: "stand_time",
            codings: [.healthKit("HKQuantityTypeIdentifierAppleStandTime", "Apple Stand Time")],
            text: "Stand time, daily total", ucum: "min", unitDisplay: "minutes", aggregation: .sum,
            category: .activity, plausibleMin: 0, plausibleMax: 1_500, unitAliases: [Alias(unit: "h", factor: 60)]),
        // HealthKit's stand hour is a category sample per clock hour (stood / idle): the day's count of stood hours.
        Metric(
            key: "stand_hours",
            codings: [.healthKit("HKCategoryTypeIdentifierAppleStandHour", "Apple Stand Hour")],
            text: "Hours with standing, daily count", ucum: "{#}", unitDisplay: "hours with standing",
            aggregation: .sum, category: .activity, plausibleMin: 0, plausibleMax: 25,
            unitAliases: [Alias(unit: "count", factor: 1)], unitOptional: true),
        Metric(
            key: "time_in_daylight",
            codings: [.healthKit("HKQuantityTypeIdentifierTimeInDaylight", "Time in Daylight")],
            text: "Time in daylight, daily total", ucum: "min", unitDisplay: "minutes", aggregation: .sum,
            category: .activity, plausibleMin: 0, plausibleMax: 1_500, unitAliases: [Alias(unit: "h", factor: 60)]),
    ]
}
