// The per-metric part of the published schema: allowed units, whether `unit` may be omitted, min/max allowed or not,
// plausible ranges in every accepted unit, and the panel shape (blood pressure) once the catalog has it.

extension DailyValueSchema {
    // MARK: - Contract rules that issue 12 items 1-2 move into the catalog

    /// The decoder's current unit rule: every metric may omit `unit` (the value is then in the catalog unit).
    ///
    /// CONNECT (issue 12 item 1): when the catalog gains its per-metric flag, return it here, e.g.
    /// `metric.unitMayBeOmitted`; everything else in the schema follows from this one lookup.
    public static func unitMayBeOmitted(_ metric: Metric) -> Bool { true }

    /// Panel metrics (issue 12 item 2): events carry one object per component instead of `value`/`min`/`max`, and
    /// always a `unit`. Each component takes its plausible range from the named catalog entry when the catalog has
    /// it, else from the panel's own entry. A panel's rules apply only when the catalog has its key.
    ///
    /// CONNECT: if the catalog describes components itself (keys and ranges), read them here instead.
    public static let panels: [String: [(member: String, rangeFrom: String)]] = [
        "blood_pressure": [("systolic", "blood_pressure_systolic"), ("diastolic", "blood_pressure_diastolic")]
    ]

    // MARK: - One metric

    /// The rules for events of `metric` (`#/$defs/metric.<key>`).
    func metricRules(_ metric: Metric) -> SchemaNode {
        if let components = Self.panels[metric.key] { return panelRules(metric, components) }
        let optional = unitMayBeOmitted(metric)
        let units = Self.unitGroups(metric)
        var properties: [(String, SchemaNode)] = [
            ("value", ["type": "number"]),
            ("unit", ["enum": .array((optional ? [.null] : []) + units.flatMap { $0.units.map(SchemaNode.string) })]),
        ]
        if !metric.allowsMinMax { properties += [("min", ["type": "null"]), ("max", ["type": "null"])] }
        let ranged = metric.allowsMinMax ? ["value", "min", "max"] : ["value"]
        var rules: [(String, SchemaNode)] = [
            ("description", .string(Self.describe(metric, unitOptional: optional))),
            ("required", optional ? ["value"] : ["value", "unit"]),
            ("properties", .object(properties)),
        ]
        rules.append(("allOf", .array(rangeRules(metric, units) { range in .object(ranged.map { ($0, range) }) })))
        return .object(rules)
    }

    /// A panel: `value`/`min`/`max` absent, each component an object with its own value (and min/max when allowed).
    private func panelRules(_ metric: Metric, _ components: [(member: String, rangeFrom: String)]) -> SchemaNode {
        let units = Self.unitGroups(metric)
        var properties: [(String, SchemaNode)] = [
            ("value", ["type": "null"]), ("min", ["type": "null"]), ("max", ["type": "null"]),
            ("unit", ["enum": .array(units.flatMap { $0.units.map(SchemaNode.string) })]),
        ]
        var ranges: [SchemaNode] = []
        for component in components {
            let extra: [(String, SchemaNode)] =
                metric.allowsMinMax
                ? [("min", ["type": Self.number]), ("max", ["type": Self.number])]
                : [("min", ["type": "null"]), ("max", ["type": "null"])]
            properties.append(
                (
                    component.member,
                    [
                        "type": "object", "required": ["value"],
                        "properties": .object([("value", ["type": "number"])] + extra),
                    ]
                ))
            let source = catalog[component.rangeFrom] ?? metric
            let ranged = metric.allowsMinMax ? ["value", "min", "max"] : ["value"]
            ranges += rangeRules(source, units) { range in
                [component.member: ["properties": .object(ranged.map { ($0, range) })]]
            }
        }
        return [
            "description": .string("\(metric.text) (\(metric.ucum)): a panel; `unit` is required."),
            "required": .array((components.map(\.member) + ["unit"]).map(SchemaNode.string)),
            "properties": .object(properties),
            "allOf": .array(ranges),
        ]
    }

    // MARK: - Units and ranges

    /// Accepted units grouped by their factor into the catalog unit; the factor-1 group (the catalog unit) first.
    static func unitGroups(_ metric: Metric) -> [(factor: Double, units: [String])] {
        var groups: [(factor: Double, units: [String])] = [(1, [metric.ucum])]
        for alias in metric.unitAliases {
            if let i = groups.firstIndex(where: { $0.factor == alias.factor }) {
                groups[i].units.append(alias.unit)
            } else {
                groups.append((alias.factor, [alias.unit]))
            }
        }
        return groups
    }

    /// The plausible range of `source` in every unit group, as `allOf` branches: a plain `properties` rule for a
    /// single group, else one `if unit in group then range` per group (an absent or null unit: the catalog unit).
    ///
    /// Bounds in an alias unit are the catalog bounds converted and rounded to 9 decimals, as the decoder rounds a
    /// converted value; a value within that rounding of such a bound may be judged differently (docs/SCHEMA.md).
    private func rangeRules(
        _ source: Metric, _ groups: [(factor: Double, units: [String])],
        _ wrap: (SchemaNode) -> SchemaNode
    ) -> [SchemaNode] {
        func range(_ factor: Double) -> SchemaNode {
            [
                "minimum": .number(DailyValueDecoder.convert(source.plausibleMin, 1 / factor)),
                "maximum": .number(DailyValueDecoder.convert(source.plausibleMax, 1 / factor)),
            ]
        }
        guard groups.count > 1 else { return [["properties": wrap(range(1))]] }
        return groups.enumerated().map { index, group in
            let names = group.units.map(SchemaNode.string)
            let condition: SchemaNode =
                index == 0
                ? ["properties": ["unit": ["enum": .array([.null] + names)]]]
                : ["required": ["unit"], "properties": ["unit": ["enum": .array(names)]]]
            return ["if": condition, "then": ["properties": wrap(range(group.factor))]]
        }
    }

    private static func describe(_ metric: Metric, unitOptional: Bool) -> String {
        var text = "\(metric.text) (\(metric.ucum)"
        text += unitOptional ? "; without `unit` the value is in \(metric.ucum))" : "; `unit` is required)"
        text += metric.allowsMinMax ? "; takes min/max." : "; no min/max."
        return text
    }
}
