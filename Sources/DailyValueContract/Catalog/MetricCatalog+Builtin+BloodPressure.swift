// Built-in metrics: blood pressure, the panel and the deprecated separate parts (rules in
// MetricCatalog+Builtin.swift; the panel's codes in docs/CLINICAL.md, "Blood pressure: one panel").

private typealias Alias = Metric.UnitAlias

extension MetricCatalog {
    /// `blood_pressure` (85354-9 panel) and the deprecated `blood_pressure_systolic` / `_diastolic`.
    static let builtinBloodPressure: [Metric] = [
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
    ]
}
