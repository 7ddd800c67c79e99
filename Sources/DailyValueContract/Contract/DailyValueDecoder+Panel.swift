import JSON

// Panel metrics (blood pressure): `systolic` and `diastolic` objects `{"value", "min"?, "max"?}` instead of the
// top-level `value`/`min`/`max`, each checked against its own plausible range, systolic above diastolic.

extension DailyValueDecoder {
    /// The parts of a panel event in catalog order, converted by `conversion` and range-checked.
    func panelComponents(
        _ raw: DailyValueField.RawMembers, _ metric: Metric, conversion: UnitConversion, _ scanner: JSONScanner
    ) throws(DailyValueError) -> [DailyValue.Component] {
        for field in [DailyValueField.value, .min, .max] where !Self.isAbsent(raw[field.rawValue]) {
            throw DailyValueError(
                .conflictingFields, field: field.name, "a panel metric carries `systolic` and `diastolic` instead")
        }
        var parts: [DailyValue.Component] = []
        for component in metric.components {
            let field: DailyValueField = component.key == "systolic" ? .systolic : .diastolic
            guard case .object(let start)? = raw[field.rawValue] else {
                throw missingOrType(raw, field, "must be an object {\"value\", \"min\"?, \"max\"?}")
            }
            var nested = scanner
            nested.seek(to: start)
            let sent = try scanReading(&nested, key: component.key)
            if !metric.allowsMinMax, sent.min != nil || sent.max != nil {
                throw DailyValueError(
                    .minMaxNotAllowed, field: component.key + (sent.min != nil ? ".min" : ".max"),
                    "the metric does not take min/max")
            }
            let value = conversion.exact(sent.value.double)
            let min = sent.min.map { conversion.exact($0.double) }
            let max = sent.max.map { conversion.exact($0.double) }
            try Self.checkRanges(
                value: value, min: min, max: max, plausible: component.plausibleMin...component.plausibleMax,
                prefix: component.key + ".")
            let stored = Self.stored(
                conversion, value: (value, sent.value), min: min.map { ($0, sent.min!) },
                max: max.map { ($0, sent.max!) })
            parts.append(DailyValue.Component(key: component.key, value: stored.0, min: stored.1, max: stored.2))
        }
        if parts.count == 2, parts[0].value <= parts[1].value {
            throw DailyValueError(
                .panelInconsistent, field: "\(parts[0].key).value", "must be greater than `\(parts[1].key).value`")
        }
        return parts
    }

    /// Rejects `systolic`/`diastolic` on a metric that is not a panel.
    func checkNoPanelMembers(_ raw: DailyValueField.RawMembers) throws(DailyValueError) {
        for field in DailyValueField.panelMembers where !Self.isAbsent(raw[field.rawValue]) {
            throw DailyValueError(.conflictingFields, field: field.name, "only a panel metric takes this member")
        }
    }

    private static func isAbsent(_ value: RawJSONValue?) -> Bool {
        switch value {
        case nil, .null?: true
        default: false
        }
    }

    /// Re-scans one (already syntax-checked) part object; unknown members are ignored like at the top level.
    private func scanReading(_ scanner: inout JSONScanner, key: String) throws(DailyValueError)
        -> (value: JSONScanner.NumberToken, min: JSONScanner.NumberToken?, max: JSONScanner.NumberToken?)
    {
        var numbers: [JSONScanner.NumberToken?] = [nil, nil, nil]
        var seen = [false, false, false]
        let names = ["value", "min", "max"]
        try scanner.consume(0x7B, "'{'")
        if !scanner.consume(0x7D) {
            repeat {
                scanner.skipWhitespace()
                let name = try scanner.readString()
                try scanner.consume(0x3A, "':'")
                let index = Self.withKeyBytes(name, scanner) { bytes in
                    names.firstIndex { $0.utf8.elementsEqual(bytes) }
                }
                guard let index else {
                    try scanner.skip(depth: 2, maxDepth: policy.maxNestingDepth)
                    continue
                }
                let field = key + "." + names[index]
                guard !seen[index] else {
                    throw DailyValueError(.duplicateField, field: field, "the member appears more than once")
                }
                seen[index] = true
                scanner.skipWhitespace()
                if scanner.consumeLiteral("null") { continue }
                guard scanner.peek == 0x2D || (0x30...0x39).contains(scanner.peek) else {
                    try scanner.skip(depth: 2, maxDepth: policy.maxNestingDepth)
                    throw DailyValueError(.invalidFieldType, field: field, "must be a number")
                }
                let number = try scanner.readNumber()  // Double.infinity on overflow
                guard number.double.isFinite else {
                    throw DailyValueError(.invalidNumber, field: field, "the number must be finite")
                }
                numbers[index] = number
            } while scanner.consume(0x2C)
            try scanner.consume(0x7D, "',' or '}'")
        }
        guard let value = numbers[0] else {
            throw DailyValueError(.missingField, field: key + ".value", "the member is required")
        }
        return (value, numbers[1], numbers[2])
    }
}
