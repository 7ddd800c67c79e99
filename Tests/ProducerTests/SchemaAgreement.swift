import DailyValueContract
import Foundation
import TestSupport

// The pieces of the schema agreement test: what Python `jsonschema` said about an input, the documented rules the
// schema cannot express (each a check that an input really falls under it), and the tally the test prints.

/// Python `jsonschema`'s verdict on one message (scripts/check_event_schema.py).
struct SchemaVerdict {
    /// Why the bytes are not an I-JSON document (so no schema can judge them), or `nil` when they parsed.
    var notJSON: String?
    var valid: Bool
    var errors: [String]
    /// The deepest container nesting (the event object is 1).
    var depth: Int
    /// Top-level `schema` / `version` members written with a fraction or exponent.
    var nonIntegerForm: [String]

    var accepts: Bool { notJSON == nil && valid }

    /// Runs the checker over `inputs` against the schema file at `schema`, one verdict per input.
    static func check(_ inputs: [[UInt8]], schema: URL, in directory: URL) async throws -> [SchemaVerdict] {
        let file = directory.appendingPathComponent("inputs-\(UUID().uuidString).b64")
        let lines = inputs.map { Data($0).base64EncodedString() }.joined(separator: "\n") + "\n"
        try Data(lines.utf8).write(to: file)
        let result = try await ChildProcess.run(
            try await TestPython.executable().path,
            [TestEnvironment.script("check_event_schema.py"), "--base64", schema.path], input: .file(file))
        guard result.status == 0 else { throw TestSetupError("check_event_schema.py failed: \(result.stderr)") }
        let verdicts = result.stdout.split(separator: "\n").map { line in
            let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
            let json = object["json"] as? String ?? "no verdict"
            return SchemaVerdict(
                notJSON: json == "ok" ? nil : json, valid: object["valid"] as? Bool ?? false,
                errors: object["errors"] as? [String] ?? [], depth: object["depth"] as? Int ?? 0,
                nonIntegerForm: object["nonIntegerForm"] as? [String] ?? [])
        }
        guard verdicts.count == inputs.count else {
            throw TestSetupError("check_event_schema.py gave \(verdicts.count) verdicts for \(inputs.count) inputs")
        }
        return verdicts
    }
}

/// A rule of the decoder that JSON Schema cannot express. docs/SCHEMA.md lists the same rules with the Swift test
/// of each; a disagreement between the decoder and the schema is allowed only under one of these, and only when
/// the input really falls under it.
enum SchemaGap: String, CaseIterable {
    case payloadSize = "PayloadTooLarge: message over 64 KiB"
    case dayWindow = "DayOutOfWindow: day outside the window around today"
    case zoneExists = "InvalidTimeZone: a well-formed name not in the tz database"
    case minMaxOrder = "MinMaxInconsistent: min <= value <= max"
    case panelOrder = "PanelInconsistent: systolic above diastolic"
    case sourceBytes = "InvalidSource/InvalidReason: over 256 UTF-8 bytes within 256 characters"
    case nestingDepth = "InvalidJSON: nesting deeper than 16"
    case integerForm = "SchemaVersionUnsupported/InvalidVersion: 1.0 or 1e3 where an integer is due"
    case aliasBoundRounding = "ValueOutOfRange: within rounding of an alias-converted bound"

    /// The gap that explains why the decoder and the schema judged `input` differently, or `nil`.
    /// - Parameter error: the decoder's rejection; `nil` when it accepted and the schema rejected.
    static func explaining(
        _ error: DailyValueError?, _ input: [UInt8], _ verdict: SchemaVerdict, policy: ValidationPolicy
    ) -> SchemaGap? {
        guard let error else { return nearAliasBound(input) ? .aliasBoundRounding : nil }
        switch error.kind {
        case .payloadTooLarge: return input.count > policy.maxPayloadBytes ? .payloadSize : nil
        case .dayOutOfWindow: return .dayWindow
        case .invalidTimeZone: return .zoneExists
        case .minMaxInconsistent: return .minMaxOrder
        case .panelInconsistent: return .panelOrder
        case .invalidSource, .invalidReason:
            let text = member(input, path: error.field.split(separator: ".").map(String.init)) as? String
            return (text?.utf8.count ?? 0) > policy.maxSourceFieldBytes ? .sourceBytes : nil
        case .invalidJSON: return verdict.depth > policy.maxNestingDepth ? .nestingDepth : nil
        case .schemaVersionUnsupported, .invalidVersion:
            return verdict.nonIntegerForm.contains(error.field) ? .integerForm : nil
        case .valueOutOfRange: return nearAliasBound(input) ? .aliasBoundRounding : nil
        default: return nil
        }
    }

    /// Whether a value, min or max in an alias unit (not the identity) converts to within 1e-6 of a bound.
    private static func nearAliasBound(_ input: [UInt8]) -> Bool {
        guard let key = member(input, path: ["metric"]) as? String, let metric = MetricCatalog.builtin[key],
            let unit = member(input, path: ["unit"]) as? String,
            let conversion = metric.conversion(forUnit: unit), !conversion.isIdentity
        else { return false }
        return ["value", "min", "max"].contains { name in
            guard let number = (member(input, path: [name]) as? NSNumber)?.doubleValue else { return false }
            let converted = (number + conversion.offset) * conversion.factor
            let bounds = [metric.plausibleMin, metric.plausibleMax] + (metric.minPlausibleMin.map { [$0] } ?? [])
            return bounds.contains { abs(converted - $0) <= 1e-6 * max(1, abs($0)) }
        }
    }

    private static func member(_ input: [UInt8], path: [String]) -> Any? {
        var node = try? JSONSerialization.jsonObject(with: Data(input))
        for name in path { node = (node as? [String: Any])?[name] }
        return node
    }
}

/// The agreement figures: inputs, each side's accept/reject counts, and disagreements by reason.
struct AgreementTally: CustomStringConvertible {
    var inputs = 0
    var decoderAccepted = 0
    var schemaAccepted = 0
    var notJSON = 0
    var agreed = 0
    /// Decoder rejections by reason: how many the schema (or the I-JSON parse) also rejected.
    var rejectedBoth: [String: Int] = [:]
    var allowed: [SchemaGap: Int] = [:]
    var unexplained: [String] = []

    mutating func add(_ name: String, _ error: DailyValueError?, _ verdict: SchemaVerdict, gap: SchemaGap?) {
        inputs += 1
        if error == nil { decoderAccepted += 1 }
        if verdict.accepts { schemaAccepted += 1 }
        if verdict.notJSON != nil { notJSON += 1 }
        if (error == nil) == verdict.accepts {
            agreed += 1
            if let error { rejectedBoth[error.className, default: 0] += 1 }
        } else if let gap {
            allowed[gap, default: 0] += 1
        } else {
            let decoder = error.map { "\($0)" } ?? "accepted"
            let schema = verdict.notJSON ?? (verdict.valid ? "valid" : verdict.errors.joined(separator: "; "))
            unexplained.append("\(name): decoder \(decoder) | schema \(schema)")
        }
    }

    var description: String {
        var lines = [
            "inputs \(inputs): decoder accepted \(decoderAccepted), rejected \(inputs - decoderAccepted); "
                + "jsonschema accepted \(schemaAccepted), rejected \(inputs - schemaAccepted) "
                + "(\(notJSON) not I-JSON, \(inputs - schemaAccepted - notJSON) by the schema)",
            "agree \(agreed); rejected by both, by decoder reason: "
                + rejectedBoth.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "),
            "disagreements allowed (not expressible) \(allowed.values.reduce(0, +)): "
                + allowed.sorted { $0.key.rawValue < $1.key.rawValue }.map { "[\($0.key.rawValue)] \($0.value)" }
                .joined(separator: ", "),
            "disagreements unexplained \(unexplained.count)",
        ]
        lines += unexplained.prefix(20).map { "  " + $0 }
        return lines.joined(separator: "\n")
    }
}

/// Inputs derived from the catalog, so every per-metric rule is probed: each accepted unit (and none) at and
/// beyond the plausible bounds, min/max where allowed and where not, and a unit of another metric.
enum CatalogProbes {
    static func all(_ catalog: MetricCatalog) -> [(name: String, json: String)] {
        catalog.allMetrics.flatMap { $0.isPanel ? panelProbes($0) : probes($0) }
    }

    private static func probes(_ metric: Metric) -> [(name: String, json: String)] {
        let units: [(name: String?, conversion: UnitConversion)] =
            [(nil, .identity), (metric.ucum, .identity)] + metric.unitAliases.map { ($0.unit, $0.conversion) }
        var out: [(String, String)] = []
        for unit in units {
            let low = unit.conversion.inverse(metric.plausibleMin)
            let high = unit.conversion.inverse(metric.plausibleMax)
            let step = max((high - low) / 100, 1e-3)
            var values = [low + step, high - step, low - step, high + step, (low + high) / 2]
            if unit.conversion.isIdentity { values += [low, high] }  // exact bounds only where no conversion rounds
            for value in values {
                out.append(
                    ("\(metric.key) \(unit.name ?? "no unit") \(value)", event(metric, unit.name, ["value": value])))
            }
            let middle = (low + high) / 2
            let range: [String: Double] = ["value": middle, "min": low + step, "max": high - step]
            out.append(("\(metric.key) \(unit.name ?? "no unit") with min/max", event(metric, unit.name, range)))
            // A day minimum with its own lower bound: just inside and just outside it.
            if let floor = metric.minPlausibleMin.map(unit.conversion.inverse) {
                for minimum in [floor + step, floor - step, (floor + low) / 2] {
                    out.append(
                        ("\(metric.key) \(unit.name ?? "no unit") min \(minimum)",
                         event(metric, unit.name, ["value": middle, "min": minimum])))
                }
            }
        }
        let middle = (metric.plausibleMin + metric.plausibleMax) / 2
        out.append(("\(metric.key) unit of another metric", event(metric, "furlong/min", ["value": middle])))
        out.append(("\(metric.key) empty unit", event(metric, "", ["value": middle])))
        return out
    }

    /// A panel: each component at and beyond its bounds (the others mid-range), with min/max, without a unit,
    /// with a top-level value, and the parts in the wrong order.
    private static func panelProbes(_ metric: Metric) -> [(name: String, json: String)] {
        let middles = metric.components.map { ($0.plausibleMin + $0.plausibleMax) / 2 }
        func event(_ unit: String?, _ readings: [String], extra: [String] = []) -> String {
            let parts = zip(metric.components, readings).map { "\"\($0.key)\":{\($1)}" }
            return Self.event(metric, unit, [:], extra: parts + extra)
        }
        let plain = middles.map { "\"value\":\($0)" }
        var out: [(String, String)] = []
        for unit in [nil, metric.ucum] + metric.unitAliases.map(\.unit) {
            let name = "\(metric.key) \(unit ?? "no unit")"
            out.append(("\(name) mid-range", event(unit, plain)))
            for (index, component) in metric.components.enumerated() {
                let step = (component.plausibleMax - component.plausibleMin) / 100
                let edges = [
                    component.plausibleMin, component.plausibleMax, component.plausibleMin - step,
                    component.plausibleMax + step, component.plausibleMin + step, component.plausibleMax - step,
                ]
                for number in edges {
                    var readings = plain
                    readings[index] = "\"value\":\(number)"
                    out.append(("\(name) \(component.key) \(number)", event(unit, readings)))
                }
                var ranged = plain
                let low = component.plausibleMin + step
                let high = component.plausibleMax - step
                ranged[index] = "\"value\":\(middles[index]),\"min\":\(low),\"max\":\(high)"
                out.append(("\(name) \(component.key) with min/max", event(unit, ranged)))
                ranged[index] = "\"value\":\(middles[index]),\"min\":\(low - 2 * step)"
                out.append(("\(name) \(component.key) min out of range", event(unit, ranged)))
            }
            out.append(("\(name) with a top-level value", event(unit, plain, extra: ["\"value\":100"])))
            out.append(("\(name) parts in the wrong order", event(unit, plain.reversed())))
        }
        return out
    }

    private static func event(
        _ metric: Metric, _ unit: String?, _ numbers: [String: Double], extra: [String] = []
    ) -> String {
        var members = [
            #""schema":1"#, #""patient":"p-1""#, "\"metric\":\"\(metric.key)\"", #""day":"2026-10-01""#,
            #""utcOffset":"+02:00""#,
        ]
        members += numbers.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.value)" }
        if let unit { members.append("\"unit\":\"\(unit)\"") }
        return "{" + (members + extra).joined(separator: ",") + "}"
    }
}
