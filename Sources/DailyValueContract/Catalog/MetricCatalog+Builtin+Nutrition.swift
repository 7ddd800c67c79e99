// Built-in metrics: nutrition logged in HealthKit (rules in MetricCatalog+Builtin.swift). Food logs are the person's
// own estimates (labels, databases), summed over the local day; no category (R4 has none for intake).

private typealias Alias = Metric.UnitAlias

extension MetricCatalog {
    /// Dietary energy, water, protein, carbohydrates and total fat: daily totals.
    static let builtinNutrition: [Metric] = [
        // 75298-0 "Calorie intake 24 hour Estimated": an energy rate over 24 h, estimated from what the person
        // reports (LOINC's description), so the unit is kcal/d (a day's total in kcal is the same number).
        Metric(
            key: "dietary_energy_consumed",
            codings: [.loinc("75298-0", "Calorie intake 24 hour Estimated")],
            text: "Dietary energy (logged), daily total", ucum: "kcal/d", unitDisplay: "kcal/day", aggregation: .sum,
            category: nil, plausibleMin: 0, plausibleMax: 20_000, unitAliases: [Alias(unit: "kcal", factor: 1)]),
        Metric(
            key: "dietary_water",
            codings: [.healthKit("HKQuantityTypeIdentifierDietaryWater", "Dietary Water")],
            text: "Water intake (logged), daily total", ucum: "mL", unitDisplay: "mL", aggregation: .sum,
            category: nil, plausibleMin: 0, plausibleMax: 20_000, unitAliases: [Alias(unit: "L", factor: 1000)]),
        Metric(
            key: "dietary_protein",
            codings: [.healthKit("HKQuantityTypeIdentifierDietaryProtein", "Dietary Protein")],
            text: "Protein intake (logged), daily total", ucum: "g", unitDisplay: "g", aggregation: .sum,
            category: nil, plausibleMin: 0, plausibleMax: 1_000),
        Metric(
            key: "dietary_carbohydrates",
            codings: [.healthKit("HKQuantityTypeIdentifierDietaryCarbohydrates", "Dietary Carbohydrates")],
            text: "Carbohydrate intake (logged), daily total", ucum: "g", unitDisplay: "g", aggregation: .sum,
            category: nil, plausibleMin: 0, plausibleMax: 2_000),
        Metric(
            key: "dietary_fat_total",
            codings: [.healthKit("HKQuantityTypeIdentifierDietaryFatTotal", "Dietary Fat Total")],
            text: "Total fat intake (logged), daily total", ucum: "g", unitDisplay: "g", aggregation: .sum,
            category: nil, plausibleMin: 0, plausibleMax: 1_000),
    ]
}
