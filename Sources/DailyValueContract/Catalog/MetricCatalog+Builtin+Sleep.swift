// Built-in metrics: sleep (rules in MetricCatalog+Builtin.swift). A night is assigned to the local day it ends on
// (the wake-up day); each stage is the sum of its HealthKit sleep-analysis intervals, de-duplicated across sources.

private typealias Alias = Metric.UnitAlias

extension MetricCatalog {
    /// Sleep duration, its stages (deep, REM, core, awake) and the sleeping wrist temperature.
    static let builtinSleep: [Metric] = [
        Metric(
            key: "sleep_duration",
            codings: [
                .loinc("93832-4", "Sleep duration")
            ],
            text: "Sleep duration (asleep stages), assigned to the wake-up day", ucum: "min", unitDisplay: "minutes",
            aggregation: .sum, category: .activity, plausibleMin: 0, plausibleMax: 1_500,
            unitAliases: [Alias(unit: "h", factor: 60)]),
        Metric(
            key: "sleep_deep_duration",
            codings: [.loinc("93831-6", "Deep sleep duration")],
            text: "Deep sleep duration, assigned to the wake-up day", ucum: "min", unitDisplay: "minutes",
            aggregation: .sum, category: .activity, plausibleMin: 0, plausibleMax: 1_500,
            unitAliases: [Alias(unit: "h", factor: 60)]),
        Metric(
            key: "sleep_rem_duration",
            codings: [.loinc("93829-0", "REM sleep duration")],
            text: "REM sleep duration, assigned to the wake-up day", ucum: "min", unitDisplay: "minutes",
            aggregation: .sum, category: .activity, plausibleMin: 0, plausibleMax: 1_500,
            unitAliases: [Alias(unit: "h", factor: 60)]),
        // Apple's "core" stage is light sleep (AASM N1 + N2): LOINC's light sleep duration (docs/CLINICAL.md).
        Metric(
            key: "sleep_core_duration",
            codings: [.loinc("93830-8", "Light sleep duration")],
            text: "Core (light) sleep duration, assigned to the wake-up day", ucum: "min", unitDisplay: "minutes",
            aggregation: .sum, category: .activity, plausibleMin: 0, plausibleMax: 1_500,
            unitAliases: [Alias(unit: "h", factor: 60)]),
        // Awake intervals inside the sleep session, before sleep onset included: not LOINC's wake after sleep onset.
        Metric(
            key: "sleep_awake_duration",
            codings: [.healthKit("HKCategoryValueSleepAnalysisAwake", "Sleep Analysis: Awake")],
            text: "Awake time in the sleep session, assigned to the wake-up day", ucum: "min", unitDisplay: "minutes",
            aggregation: .sum, category: .activity, plausibleMin: 0, plausibleMax: 1_500,
            unitAliases: [Alias(unit: "h", factor: 60)]),
        // One value a night from the Watch's skin sensor: not a core body temperature (not 8310-5, not vital-signs).
        Metric(
            key: "sleeping_wrist_temperature",
            codings: [
                .healthKit("HKQuantityTypeIdentifierAppleSleepingWristTemperature", "Apple Sleeping Wrist Temperature")
            ],
            text: "Wrist skin temperature during sleep, latest night", ucum: "Cel", unitDisplay: "degrees C",
            aggregation: .latest, category: nil, plausibleMin: 25, plausibleMax: 42,
            unitAliases: [Alias(unit: "[degF]", factor: 5.0 / 9.0, offset: -32)]),
    ]
}
