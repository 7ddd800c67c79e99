// The per-metric part of the published schema: allowed units, whether `unit` may be omitted, min/max allowed or not,
// plausible ranges in every accepted unit, and the panel shape (blood pressure, from the catalog's components).

extension DailyValueSchema {
    // MARK: - The catalog's unit rule

    /// Whether events of `metric` may omit `unit`: the catalog's ``Metric/unitOptional`` (only where one unit is
    /// universal), the decoder's rule; any other event without `unit` is rejected with `MissingUnit`.
    public static func unitMayBeOmitted(_ metric: Metric) -> Bool { metric.unitOptional }

    // MARK: - One metric

    /// The rules for events of `metric` (`#/$defs/metric.<key>`).
    func metricRules(_ metric: Metric) -> SchemaNode {
        let optional = unitMayBeOmitted(metric)
        if metric.isPanel { return panelRules(metric, unitOptional: optional) }
        let units = Self.unitGroups(metric)
        var properties: [(String, SchemaNode)] = [
            ("value", ["type": "number"]),
            ("unit", ["enum": .array((optional ? [.null] : []) + units.flatMap { $0.units.map(SchemaNode.string) })]),
        ]
        if !metric.allowsMinMax { properties += [("min", ["type": "null"]), ("max", ["type": "null"])] }
        properties += DailyValueField.panelMembers.map { ($0.name, ["type": "null"]) }  // a panel's members only
        // A metric whose day minimum has its own lower bound (``Metric/minPlausibleMin``) gets a rule for `min`.
        let ownMinBound = metric.allowsMinMax ? metric.minPlausibleMin : nil
        let ranged = metric.allowsMinMax ? (ownMinBound == nil ? ["value", "min", "max"] : ["value", "max"]) : ["value"]
        var rules: [(String, SchemaNode)] = [
            ("description", .string(Self.describe(metric, unitOptional: optional))),
            ("required", optional ? ["value"] : ["value", "unit"]),
            ("properties", .object(properties)),
        ]
        let bounds = (min: metric.plausibleMin, max: metric.plausibleMax)
        var ranges = rangeRules(bounds, units) { range in .object(ranged.map { ($0, range) }) }
        if let ownMinBound {
            ranges += rangeRules((ownMinBound, metric.plausibleMax), units) { range in ["min": range] }
        }
        rules.append(("allOf", .array(ranges)))
        return .object(rules)
    }

    /// A panel (``Metric/components``): `value`/`min`/`max` absent, each component an object with its own value
    /// (and min/max when the metric allows them) in the component's plausible range.
    private func panelRules(_ metric: Metric, unitOptional optional: Bool) -> SchemaNode {
        let units = Self.unitGroups(metric)
        var properties: [(String, SchemaNode)] = [
            ("value", ["type": "null"]), ("min", ["type": "null"]), ("max", ["type": "null"]),
            ("unit", ["enum": .array((optional ? [.null] : []) + units.flatMap { $0.units.map(SchemaNode.string) })]),
        ]
        let extra: [(String, SchemaNode)] =
            metric.allowsMinMax
            ? [("min", ["type": Self.number]), ("max", ["type": Self.number])]
            : [("min", ["type": "null"]), ("max", ["type": "null"])]
        let ranged = metric.allowsMinMax ? ["value", "min", "max"] : ["value"]
        var ranges: [SchemaNode] = []
        for component in metric.components {
            let reading: SchemaNode = [
                "type": "object", "required": ["value"],
                "properties": .object([("value", ["type": "number"])] + extra),
            ]
            properties.append((component.key, reading))
            let bounds = (min: component.plausibleMin, max: component.plausibleMax)
            ranges += rangeRules(bounds, units) { range in
                [component.key: ["properties": .object(ranged.map { ($0, range) })]]
            }
        }
        let keys = metric.components.map(\.key)
        return [
            "description": .string(
                "\(metric.text) (\(metric.ucum)): a panel of \(keys.joined(separator: ", "))"
                    + (optional ? "." : "; `unit` is required.")),
            "required": .array((keys + (optional ? [] : ["unit"])).map(SchemaNode.string)),
            "properties": .object(properties),
            "allOf": .array(ranges),
        ]
    }

    // MARK: - Units and ranges

    /// Accepted units grouped by their conversion into the catalog unit; the identity group (the catalog unit) first.
    static func unitGroups(_ metric: Metric) -> [(conversion: UnitConversion, units: [String])] {
        var groups: [(conversion: UnitConversion, units: [String])] = [(.identity, [metric.ucum])]
        for alias in metric.unitAliases {
            if let i = groups.firstIndex(where: { $0.conversion == alias.conversion }) {
                groups[i].units.append(alias.unit)
            } else {
                groups.append((alias.conversion, [alias.unit]))
            }
        }
        return groups
    }

    /// The plausible range `bounds` (in the catalog unit) in every unit group, as `allOf` branches: a plain
    /// `properties` rule for a single group, else one `if unit in group then range` per group (an absent or null
    /// unit: the catalog unit).
    ///
    /// Bounds in an alias unit are the catalog bounds converted back and rounded to 9 decimals, as the decoder
    /// checks the exact conversion; a value within that rounding of such a bound may be judged differently
    /// (docs/SCHEMA.md).
    private func rangeRules(
        _ bounds: (min: Double, max: Double), _ groups: [(conversion: UnitConversion, units: [String])],
        _ wrap: (SchemaNode) -> SchemaNode
    ) -> [SchemaNode] {
        func range(_ conversion: UnitConversion) -> SchemaNode {
            [
                "minimum": .number(conversion.inverse(bounds.min)),
                "maximum": .number(conversion.inverse(bounds.max)),
            ]
        }
        guard groups.count > 1 else { return [["properties": wrap(range(.identity))]] }
        return groups.enumerated().map { index, group in
            let names = group.units.map(SchemaNode.string)
            let condition: SchemaNode =
                index == 0
                ? ["properties": ["unit": ["enum": .array([.null] + names)]]]
                : ["required": ["unit"], "properties": ["unit": ["enum": .array(names)]]]
            return ["if": condition, "then": ["properties": wrap(range(group.conversion))]]
        }
    }

    private static func describe(_ metric: Metric, unitOptional: Bool) -> String {
        var text = "\(metric.text) (\(metric.ucum)"
        text += unitOptional ? "; without `unit` the value is in \(metric.ucum))" : "; `unit` is required)"
        text += metric.allowsMinMax ? "; takes min/max." : "; no min/max."
        return text
    }
}
