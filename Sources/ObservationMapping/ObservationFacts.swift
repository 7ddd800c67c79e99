import DailyValueContract
import JSON

/// What SQL users query an Observation by, kept in typed columns next to the compressed document (docs/STORAGE.md):
/// the value, its UCUM unit, the day's own minimum and maximum, a blood-pressure panel's two parts, and the local
/// day as an instant range. The document stays the whole truth; these are copies of what it says.
public struct ObservationFacts: Sendable, Hashable {
    /// `valueQuantity.value`; nil for a panel.
    public var value: Double?
    /// The UCUM code of the value (or of the panel's parts).
    public var unit: String
    /// The day's minimum and maximum of a single-quantity metric.
    public var min: Double?
    public var max: Double?
    /// The `systolic` and `diastolic` parts of a panel (other panels' parts are in the document only).
    public var systolic: Double?
    public var diastolic: Double?
    /// `effectivePeriod` as seconds since the epoch: the local day's first instant and the next day's.
    public var periodStart: Int64
    public var periodEnd: Int64

    public init(
        value: Double?, unit: String, min: Double? = nil, max: Double? = nil, systolic: Double? = nil,
        diastolic: Double? = nil, periodStart: Int64, periodEnd: Int64
    ) {
        self.value = value
        self.unit = unit
        self.min = min
        self.max = max
        self.systolic = systolic
        self.diastolic = diastolic
        self.periodStart = periodStart
        self.periodEnd = periodEnd
    }

    /// The facts of a mapped value, as the mapper writes them into the resource.
    package init(_ value: DailyValue, metric: Metric, periodStart: Int64, periodEnd: Int64) {
        let part = { (key: String) in value.components.first { $0.key == key }?.value }
        self.init(
            value: value.value, unit: metric.ucum, min: metric.allowsMinMax ? value.min : nil,
            max: metric.allowsMinMax ? value.max : nil, systolic: part("systolic"), diastolic: part("diastolic"),
            periodStart: periodStart, periodEnd: periodEnd)
    }

    /// The facts a stored resource states (rows of schema 3, `storectl migrate`), read by the codes `metric` writes;
    /// nil when the resource has no `effectivePeriod` the contract writes.
    package init?(resource: JSONValue, metric: Metric?) {
        guard let start = resource["effectivePeriod"]?["start"]?.string.flatMap(FHIRDateTime.epochSeconds),
            let end = resource["effectivePeriod"]?["end"]?.string.flatMap(FHIRDateTime.epochSeconds)
        else { return nil }
        let components = resource["component"]?.array ?? []
        func quantity(where matches: (FHIRCoding) -> Bool) -> Double? {
            components.first { component in
                (component["code"]?["coding"]?.array ?? []).contains { coding in
                    guard let system = coding["system"]?.string, let code = coding["code"]?.string else { return false }
                    return matches(FHIRCoding(system: system, code: code, display: ""))
                }
            }?["valueQuantity"]?["value"]?.number
        }
        func same(_ wanted: FHIRCoding?) -> (FHIRCoding) -> Bool {
            { coding in wanted.map { $0.system == coding.system && $0.code == coding.code } ?? false }
        }
        let part = { (key: String) in metric?.components.first { $0.key == key }?.codings.first }
        let ownRange = metric?.allowsMinMax == true && metric?.isPanel == false
        self.init(
            value: resource["valueQuantity"]?["value"]?.number,
            unit: resource["valueQuantity"]?["code"]?.string ?? components.first?["valueQuantity"]?["code"]?.string
                ?? metric?.ucum ?? "",
            min: ownRange ? quantity(where: same(metric?.resolvedMinimumCoding)) : nil,
            max: ownRange ? quantity(where: same(metric?.resolvedMaximumCoding)) : nil,
            systolic: quantity(where: same(part("systolic"))), diastolic: quantity(where: same(part("diastolic"))),
            periodStart: start, periodEnd: end)
    }
}
