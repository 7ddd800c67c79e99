// Built-in metrics: mobility and fitness (rules in MetricCatalog+Builtin.swift). Apple computes these from walks,
// stairs and workouts; no LOINC code names the same measurement (docs/CLINICAL.md), so each carries its HealthKit
// code, category activity, and a daily mean states `method` = observation-statistics#average.

private typealias Alias = Metric.UnitAlias

extension MetricCatalog {
    /// Gait and stairs (daily means), walking steadiness, six-minute walk and VO2 max (latest), heart rate recovery.
    static let builtinMobility: [Metric] = [
        Metric(
            key: "walking_speed",
            codings: [.healthKit("HKQuantityTypeIdentifierWalkingSpeed", "Walking Speed")],
            text: "Walking speed on flat ground, daily mean", ucum: "m/s", unitDisplay: "m/s", aggregation: .mean,
            category: .activity, plausibleMin: 0.1, plausibleMax: 5, unitAliases: [Alias(unit: "km/h", factor: 1 / 3.6)]
        ),
        Metric(
            key: "walking_step_length",
            codings: [.healthKit("HKQuantityTypeIdentifierWalkingStepLength", "Walking Step Length")],
            text: "Walking step length, daily mean", ucum: "cm", unitDisplay: "cm", aggregation: .mean,
            category: .activity, plausibleMin: 10, plausibleMax: 200,
            unitAliases: [Alias(unit: "m", factor: 100), Alias(unit: "[in_i]", factor: 2.54)]),
        Metric(
            key: "walking_double_support_percentage",
            codings: [
                .healthKit(
                    "HKQuantityTypeIdentifierWalkingDoubleSupportPercentage", "Walking Double Support Percentage")
            ],
            text: "Double-support time (% of gait cycle), daily mean", ucum: "%", unitDisplay: "%",
            aggregation: .mean, category: .activity, plausibleMin: 1, plausibleMax: 100,
            unitAliases: [Alias(unit: "1", factor: 100)]),
        // 0 % is a perfectly symmetric gait, so a fraction sent as `%` cannot be told apart here (docs/CLINICAL.md).
        Metric(
            key: "walking_asymmetry_percentage",
            codings: [.healthKit("HKQuantityTypeIdentifierWalkingAsymmetryPercentage", "Walking Asymmetry Percentage")],
            text: "Walking asymmetry (% of steps), daily mean", ucum: "%", unitDisplay: "%", aggregation: .mean,
            category: .activity, plausibleMin: 0, plausibleMax: 100, unitAliases: [Alias(unit: "1", factor: 100)]),
        // Apple's fall-risk score from a week or more of walks, written about once a week: the day's latest.
        Metric(
            key: "walking_steadiness",
            codings: [.healthKit("HKQuantityTypeIdentifierAppleWalkingSteadiness", "Apple Walking Steadiness")],
            text: "Walking steadiness (Apple estimate), latest", ucum: "%", unitDisplay: "%", aggregation: .latest,
            category: .activity, plausibleMin: 1, plausibleMax: 100, unitAliases: [Alias(unit: "1", factor: 100)]),
        Metric(
            key: "stair_ascent_speed",
            codings: [.healthKit("HKQuantityTypeIdentifierStairAscentSpeed", "Stair Ascent Speed")],
            text: "Stair ascent speed (vertical), daily mean", ucum: "m/s", unitDisplay: "m/s", aggregation: .mean,
            category: .activity, plausibleMin: 0.01, plausibleMax: 3),
        Metric(
            key: "stair_descent_speed",
            codings: [.healthKit("HKQuantityTypeIdentifierStairDescentSpeed", "Stair Descent Speed")],
            text: "Stair descent speed (vertical), daily mean", ucum: "m/s", unitDisplay: "m/s", aggregation: .mean,
            category: .activity, plausibleMin: 0.01, plausibleMax: 3),
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
        // The drop in heart rate one minute after a workout ends (one value per workout): the day's mean.
        Metric(
            key: "heart_rate_recovery_one_minute",
            codings: [
                .healthKit("HKQuantityTypeIdentifierHeartRateRecoveryOneMinute", "Heart Rate Recovery One Minute")
            ],
            text: "Heart rate recovery (1 min after a workout), daily mean", ucum: "/min", unitDisplay: "beats/minute",
            aggregation: .mean, category: .activity, plausibleMin: 0, plausibleMax: 150,
            unitAliases: [Alias(unit: "count/min", factor: 1), Alias(unit: "bpm", factor: 1)], unitOptional: true),
    ]
}
