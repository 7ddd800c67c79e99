import DailyValueContract
import Essentials

/// The fields of one generated event before it is rendered as JSON, valid or deliberately broken.
///
/// Rendering is a pure function of the draft, so a duplicate rendered twice is byte-identical.
struct EventDraft: Sendable, Hashable {
    /// One drawn part of a panel event (blood pressure `systolic`).
    struct Part: Sendable, Hashable {
        var profile: MetricProfile
        var value: Double
        var min: Double?
        var max: Double?
    }

    var patient: String
    var profile: MetricProfile
    var day: CivilDay
    var zone: ZoneProfile
    var value: Double
    var min: Double?
    var max: Double?
    var version: Int64
    var source: SourceProfile
    /// A panel's parts in the profile's order (``value``/``min``/``max`` are then not sent); empty otherwise.
    var parts: [Part] = []
    /// Set for a retraction of the day (docs/LIFECYCLE.md): rendered as a retraction event with this reason.
    var retractionReason: String?

    /// `patient/metric/day`, the upsert identity.
    var identity: String { "\(patient)/\(profile.key)/\(day)" }

    // MARK: - Rendering

    /// The valid DailyValue v1 JSON line (fields in the order of the design document's example).
    func render() -> [UInt8] {
        if let retractionReason {
            let retraction = DailyValueRetraction(
                patient: patient, metric: profile.key, day: day.description, version: version, reason: retractionReason)
            return Array(retraction.jsonLine().utf8)
        }
        return Array(json().utf8)
    }

    /// A line that breaks exactly the rule of `invalidClass`.
    func render(breaking invalidClass: InvalidEventClass, using random: inout SplitMix64) -> [UInt8] {
        var draft = self
        draft.retractionReason = nil  // a broken event is always a broken value
        switch invalidClass {
        case .brokenJSON:
            let valid = draft.render()
            return Array(valid.prefix(valid.count * random.integer(in: 30...80) / 100))
        case .unknownSchema:
            return Array(draft.json(schema: [2, 3, 99][random.below(3)]).utf8)
        case .unknownMetric:
            let keys = ["mood_score", "stand_hours_total", "blood_alcohol_content"]
            return Array(draft.json(metricKey: keys[random.below(keys.count)]).utf8)
        case .outOfRange:
            draft.value = profile.absurdValue
            draft.min = nil
            draft.max = nil
            if !draft.parts.isEmpty { draft.parts[0] = Part(profile: parts[0].profile, value: profile.absurdValue) }
            return draft.render()
        case .badUnit:
            let units = ["furlong", "beats", "count/fortnight"]
            return Array(draft.json(unit: units[random.below(units.count)]).utf8)
        case .badDay:
            let days = ["\(day.components.year)-02-30", "\(day.components.year)-13-01", "01.03.2026", "2026-1-5"]
            return Array(draft.json(dayText: days[random.below(days.count)]).utf8)
        case .badZone:
            draft.zone.value = zone.field == "timeZone" ? "Mars/Olympus_Mons" : "+25:00"
            return draft.render()
        case .oversize:
            return Array(draft.json(padding: 66_000).utf8)
        case .missingField:
            let fields = ["patient", "metric", "day", "value", "zone"]
            return Array(draft.json(omitting: fields[random.below(fields.count)]).utf8)
        }
    }

    private func json(
        schema: Int = 1, metricKey: String? = nil, unit: String? = nil, dayText: String? = nil,
        padding: Int = 0, omitting omitted: String? = nil
    ) -> String {
        var fields: [String] = ["\"schema\":\(schema)"]
        if omitted != "patient" { fields.append("\"patient\":\"\(patient)\"") }
        if omitted != "metric" { fields.append("\"metric\":\"\(metricKey ?? profile.key)\"") }
        if omitted != "day" { fields.append("\"day\":\"\(dayText ?? day.description)\"") }
        if omitted != "zone" { fields.append("\"\(zone.field)\":\"\(zone.value)\"") }
        if parts.isEmpty {
            if omitted != "value" { fields.append("\"value\":" + Self.reading(value, min, max, profile.decimals)) }
        } else {
            // Omitting "value" from a panel omits its first part (a panel has no top-level value).
            for (index, part) in parts.enumerated() where omitted != "value" || index > 0 {
                let reading = "\"value\":" + Self.reading(part.value, part.min, part.max, part.profile.decimals)
                fields.append("\"\(part.profile.key)\":{\(reading)}")
            }
        }
        fields.append("\"unit\":\"\(unit ?? profile.unit)\"")
        fields.append("\"version\":\(version)")
        fields.append(source.json)
        if padding > 0 { fields.append("\"note\":\"\(String(repeating: "x", count: padding))\"") }
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// `N`, `N,"min":N`, … : a value and its optional range as JSON members after `"value":`.
    private static func reading(_ value: Double, _ min: Double?, _ max: Double?, _ decimals: Int) -> String {
        var text = number(value, decimals: decimals)
        if let min { text += ",\"min\":" + number(min, decimals: decimals) }
        if let max { text += ",\"max\":" + number(max, decimals: decimals) }
        return text
    }

    /// A JSON number with at most `decimals` places and no trailing zeros (`71.4`, `8042`, `-3.5`).
    static func number(_ value: Double, decimals: Int) -> String {
        var scale = 1
        for _ in 0..<decimals { scale *= 10 }
        let scaled = Int((value * Double(scale)).rounded())
        let sign = scaled < 0 ? "-" : ""
        let magnitude = scaled.magnitude
        let whole = magnitude / UInt(scale)
        var fraction = magnitude % UInt(scale)
        guard fraction != 0 else { return sign + String(whole) }
        var digits = decimals
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        let text = String(fraction)
        return sign + String(whole) + "." + String(repeating: "0", count: digits - text.count) + text
    }
}
