// Built-in metrics: environment, hearing and events the Watch or the person records (rules in
// MetricCatalog+Builtin.swift). No R4 category describes these home readings; none is written.

private typealias Alias = Metric.UnitAlias

extension MetricCatalog {
    /// Environmental and headphone sound levels, the UV index, falls and inhaler use.
    static let builtinExposure: [Metric] = [
        // HealthKit's daily statistic of an audio exposure is the equivalent continuous level (energy average, LAeq):
        // `code.text` says so and no `method` claims an arithmetic average. A-weighted dB SPL; UCUM has no weighting.
        Metric(
            key: "environmental_audio_exposure",
            codings: [
                .healthKit("HKQuantityTypeIdentifierEnvironmentalAudioExposure", "Environmental Audio Exposure")
            ],
            text: "Environmental sound level, daily LAeq", ucum: "dB[SPL]", unitDisplay: "dB(A) SPL",
            aggregation: .mean, category: nil, plausibleMin: 0, plausibleMax: 140,
            unitAliases: [Alias(unit: "dBASPL", factor: 1)], codesAggregation: true),
        Metric(
            key: "headphone_audio_exposure",
            codings: [.healthKit("HKQuantityTypeIdentifierHeadphoneAudioExposure", "Headphone Audio Exposure")],
            text: "Headphone sound level, daily LAeq", ucum: "dB[SPL]", unitDisplay: "dB(A) SPL",
            aggregation: .mean, category: nil, plausibleMin: 0, plausibleMax: 140,
            unitAliases: [Alias(unit: "dBASPL", factor: 1)], codesAggregation: true),
        // The day's peak UV index (`method` = observation-statistics#maximum): the exposure that matters for skin.
        Metric(
            key: "uv_exposure",
            codings: [.healthKit("HKQuantityTypeIdentifierUVExposure", "UV Exposure")],
            text: "UV index, daily maximum", ucum: "{index}", unitDisplay: "UV index", aggregation: .maximum,
            category: nil, plausibleMin: 0, plausibleMax: 25, unitAliases: [Alias(unit: "count", factor: 1)],
            unitOptional: true),
        Metric(
            key: "number_of_times_fallen",
            codings: [.healthKit("HKQuantityTypeIdentifierNumberOfTimesFallen", "Number of Times Fallen")],
            text: "Falls, daily count", ucum: "{#}", unitDisplay: "falls", aggregation: .sum, category: nil,
            plausibleMin: 0, plausibleMax: 50, unitAliases: [Alias(unit: "count", factor: 1)], unitOptional: true),
        Metric(
            key: "inhaler_usage",
            codings: [.healthKit("HKQuantityTypeIdentifierInhalerUsage", "Inhaler Usage")],
            text: "Inhaler puffs, daily count", ucum: "{#}", unitDisplay: "puffs", aggregation: .sum, category: nil,
            plausibleMin: 0, plausibleMax: 200, unitAliases: [Alias(unit: "count", factor: 1)], unitOptional: true),
    ]
}
