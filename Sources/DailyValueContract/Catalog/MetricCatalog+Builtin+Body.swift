// Built-in metrics: body measurements and composition (rules in MetricCatalog+Builtin.swift). Weight, height and BMI
// are R4 vital signs; body fat, lean mass and waist are not in the vital-signs value set and have no category.

private typealias Alias = Metric.UnitAlias

extension MetricCatalog {
    /// Body weight, BMI, height, body fat percentage, lean body mass and waist circumference: latest of the day.
    static let builtinBody: [Metric] = [
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
        // 41982-0 "Percentage of body fat Measured": one reading (a scale, or entered), so the day's latest.
        Metric(
            key: "body_fat_percentage",
            codings: [.loinc("41982-0", "Percentage of body fat Measured")],
            text: "Body fat percentage, latest of the day", ucum: "%", unitDisplay: "%", aggregation: .latest,
            category: nil, plausibleMin: 1, plausibleMax: 75, unitAliases: [Alias(unit: "1", factor: 100)]),
        Metric(
            key: "lean_body_mass",
            codings: [.healthKit("HKQuantityTypeIdentifierLeanBodyMass", "Lean Body Mass")],
            text: "Lean body mass, latest of the day", ucum: "kg", unitDisplay: "kg", aggregation: .latest,
            category: nil, plausibleMin: 5, plausibleMax: 250,
            unitAliases: [Alias(unit: "g", factor: 0.001), Alias(unit: "[lb_av]", factor: 0.45359237)]),
        Metric(
            key: "waist_circumference",
            codings: [.healthKit("HKQuantityTypeIdentifierWaistCircumference", "Waist Circumference")],
            text: "Waist circumference, latest of the day", ucum: "cm", unitDisplay: "cm", aggregation: .latest,
            category: nil, plausibleMin: 30, plausibleMax: 300,
            unitAliases: [Alias(unit: "m", factor: 100), Alias(unit: "[in_i]", factor: 2.54)]),
    ]
}
