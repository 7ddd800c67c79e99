// Built-in metrics: heart, breathing and temperature (rules in MetricCatalog+Builtin.swift).

private typealias Alias = Metric.UnitAlias

extension MetricCatalog {
    /// Heart rates, HRV, SpO2, respiratory rate and body temperature.
    static let builtinVitalSigns: [Metric] = [
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
        Metric(
            key: "body_temperature",
            codings: [
                .loinc("8310-5", "Body temperature")
            ],
            text: "Body temperature, daily mean", ucum: "Cel", unitDisplay: "degrees C", aggregation: .mean,
            category: .vitalSigns, plausibleMin: 25, plausibleMax: 45, allowsMinMax: true,
            unitAliases: [Alias(unit: "[degF]", factor: 5.0 / 9.0, offset: -32)]),
    ]
}
