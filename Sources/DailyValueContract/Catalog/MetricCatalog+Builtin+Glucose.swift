// Built-in metrics: home glucose (rules in MetricCatalog+Builtin.swift). No category and no specimen claimed for a
// reading of unknown source; the CGM daily mean carries the CGM IG's code (docs/CLINICAL.md, "Glucose").

private typealias Alias = Metric.UnitAlias

extension MetricCatalog {
    /// `blood_glucose` (meter or CGM, not known) and `cgm_glucose_mean` (a backend that knows the CGM).
    static let builtinGlucose: [Metric] = [
        Metric(
            key: "blood_glucose",
            codings: [.healthKit("HKQuantityTypeIdentifierBloodGlucose", "Blood Glucose")],
            text: "Glucose, daily mean of home readings (meter or CGM)", ucum: "mg/dL", unitDisplay: "mg/dL",
            aggregation: .mean, category: nil, plausibleMin: 20, plausibleMax: 1_500, minPlausibleMin: 10,
            allowsMinMax: true, unitAliases: [Alias(unit: "mmol/L", factor: 18.0156)]),
        // 97507-8 "Average glucose [Mass/volume] in Interstitial fluid during Reporting Period" (LOINC 2.70; the
        // HL7 CGM IG's mean-glucose code): specimen, method and averaging are all in the code, the reporting
        // period is the local day (effectivePeriod). CGMs read 40-400/500 mg/dL, so a day's mean lies inside that.
        Metric(
            key: "cgm_glucose_mean",
            codings: [.loinc("97507-8", "Average glucose [Mass/volume] in Interstitial fluid during Reporting Period")],
            text: "Glucose (CGM, interstitial fluid), daily mean", ucum: "mg/dL", unitDisplay: "mg/dL",
            aggregation: .mean, category: nil, plausibleMin: 40, plausibleMax: 500,
            unitAliases: [Alias(unit: "mmol/L", factor: 18.0156)], codesAggregation: true),
    ]
}
