import DailyValueContract
import JSON
import Synchronization

/// The parts of an Observation that depend only on the metric, rendered once per catalog entry (a class: the mapper
/// looks one up per event, and a reference is one retain where the struct was seven).
///
/// Lean by rule: no fact twice. Codings carry no `display` (the code system defines it), `category` has no `text`,
/// component codes have no `text` unless it names which part of a panel a statistic belongs to.
final class MetricFragments: Sendable {
    /// One `component.code` and the codes of its minimum and maximum.
    struct Part: Sendable {
        /// The panel component's key (`systolic`), or `nil` for a single-quantity metric's own min/max.
        let key: String?
        let code: [UInt8]
        let minimumCode: [UInt8]
        let maximumCode: [UInt8]
    }

    /// The members `"category":[{"coding":[…]}],"code":{"coding":[…],"text":…}` (no `category` for a metric
    /// without one).
    let categoryAndCode: [UInt8]
    /// The member `"method":{"coding":[observation-statistics#…]}` of a daily mean or maximum
    /// (``Metric/methodStatistic``); `nil` otherwise.
    let method: [UInt8]?
    /// `"unit":…,"system":"http://unitsofmeasure.org","code":…}`: completes `{"value":N`
    /// (the writer adds the comma).
    let quantityTail: [UInt8]
    /// The metric's own min/max codes (single-quantity metrics that allow min/max).
    let own: Part
    /// A panel's parts in catalog order.
    let parts: [Part]
    /// Whether the metric's own min/max are written (``Metric/allowsMinMax``).
    let allowsMinMax: Bool
    /// The largest Observation of this metric written so far: the room the writer starts with, so that it rarely
    /// writes one twice (a fixed 1600 bytes was too little for one resource in five: min/max and panels run to
    /// ~2.4 KB). A hint only: a race between two threads at worst costs one re-write.
    private let largestResource = Atomic(0)

    /// - Parameters:
    ///   - statisticsSystem: the product CodeSystem of a panel part's statistics (`systolic-minimum`, …;
    ///     ``ObservationMapper/Configuration/statisticsCodeSystem``).
    init(_ metric: Metric, statisticsSystem: String) {
        self.categoryAndCode = JSONWriter.bytes(capacity: 400) { w in
            if let category = metric.category {
                w.key("category")
                w.beginArray()
                let coding = FHIRCoding(
                    system: FHIRCoding.categorySystem, code: category.rawValue, display: category.display)
                Self.writeConcept([coding], text: nil, to: &w)
                w.endArray()
            }
            w.key("code")
            Self.writeConcept(metric.codings, text: metric.text, to: &w)
        }
        self.method = metric.methodStatistic.map { statistic in
            JSONWriter.bytes(capacity: 120) { w in
                w.key("method")
                Self.writeConcept([.statistic(statistic)], text: nil, to: &w)
            }
        }

        let tail = JSONWriter.bytes(capacity: 100) { w in
            w.beginObject()  // the caller has already written `{"value":N`; drop the brace below
            w.member("unit", metric.unitDisplay)
            w.member("system", FHIRCoding.ucumSystem)
            w.member("code", metric.ucum)
            w.endObject()
        }
        self.quantityTail = Array(tail.dropFirst())

        self.own = Part(
            key: nil, code: [], minimumCode: Self.concept([metric.resolvedMinimumCoding], text: nil),
            maximumCode: Self.concept([metric.resolvedMaximumCoding], text: nil))
        self.allowsMinMax = metric.allowsMinMax
        self.parts = metric.components.map { component in
            // Without own codings: the statistic, then the product code that names the part's statistic
            // (`systolic-minimum`): observation-statistics has no systolic, and a second 8480-6 would break the
            // profile's 1..1 slice (docs/CLINICAL.md).
            func statistic(_ code: String) -> [UInt8] {
                let own = FHIRCoding(system: statisticsSystem, code: component.key + "-" + code, display: "")
                return Self.concept([.statistic(code), own], text: nil)
            }
            return Part(
                key: component.key, code: Self.concept(component.codings, text: nil),
                minimumCode: component.minimumCoding.map { Self.concept([$0], text: nil) } ?? statistic("minimum"),
                maximumCode: component.maximumCoding.map { Self.concept([$0], text: nil) } ?? statistic("maximum"))
        }
    }

    /// Room for the next Observation of this metric (see `largestResource`).
    var resourceCapacity: Int { Swift.max(1024, largestResource.load(ordering: .relaxed)) }

    /// Records the size of an Observation just written.
    func noteResource(bytes: Int) {
        if bytes > largestResource.load(ordering: .relaxed) { largestResource.store(bytes, ordering: .relaxed) }
    }

    private static func concept(_ codings: [FHIRCoding], text: String?) -> [UInt8] {
        JSONWriter.bytes(capacity: 300) { writeConcept(codings, text: text, to: &$0) }
    }

    /// A `CodeableConcept`: `{"coding":[{"system","code"}…],"text"?}`. No `display`: it repeats what the code system
    /// defines for the code (the catalog keeps it for docs/CLINICAL.md); `code.text` is the human label.
    private static func writeConcept(_ codings: [FHIRCoding], text: String?, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("coding")
        writer.beginArray()
        for coding in codings {
            writer.beginObject()
            writer.member("system", coding.system)
            writer.member("code", coding.code)
            writer.endObject()
        }
        writer.endArray()
        if let text { writer.member("text", text) }
        writer.endObject()
    }
}
