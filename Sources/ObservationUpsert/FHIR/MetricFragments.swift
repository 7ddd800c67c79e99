import DailyValueContract

/// The parts of an Observation that depend only on the metric, rendered once per catalog entry.
struct MetricFragments: Sendable {
    /// `[{"coding":[…],"text":…}]` for `category`.
    let category: [UInt8]
    /// `{"coding":[…],"text":…}` for `code`.
    let code: [UInt8]
    /// `"unit":…,"system":"http://unitsofmeasure.org","code":…}`: completes `{"value":N`
    /// (the writer adds the comma).
    let quantityTail: [UInt8]
    /// `component.code` for the day's minimum and maximum (metrics that allow min/max).
    let minimumCode: [UInt8]
    let maximumCode: [UInt8]

    init(_ metric: Metric) {
        var category = JSONWriter(capacity: 160)
        category.beginArray()
        Self.writeConcept(
            [
                FHIRCoding(
                    system: FHIRCoding.categorySystem, code: metric.category.rawValue,
                    display: metric.category.display)
            ],
            text: metric.category.display, to: &category)
        category.endArray()
        self.category = category.bytes

        var code = JSONWriter(capacity: 400)
        Self.writeConcept(metric.codings, text: metric.text, to: &code)
        self.code = code.bytes

        var tail = JSONWriter(capacity: 100)
        tail.beginObject()  // the caller has already written `{"value":N`; drop the brace below
        tail.member("unit", metric.unitDisplay)
        tail.member("system", FHIRCoding.ucumSystem)
        tail.member("code", metric.ucum)
        tail.endObject()
        self.quantityTail = Array(tail.bytes.dropFirst())

        var minimum = JSONWriter(capacity: 200)
        Self.writeConcept([metric.resolvedMinimumCoding], text: "Minimum, local day", to: &minimum)
        self.minimumCode = minimum.bytes
        var maximum = JSONWriter(capacity: 200)
        Self.writeConcept([metric.resolvedMaximumCoding], text: "Maximum, local day", to: &maximum)
        self.maximumCode = maximum.bytes
    }

    /// A `CodeableConcept`: `{"coding":[{"system","code","display"}…],"text":…}`.
    private static func writeConcept(_ codings: [FHIRCoding], text: String, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("coding")
        writer.beginArray()
        for coding in codings {
            writer.beginObject()
            writer.member("system", coding.system)
            writer.member("code", coding.code)
            writer.member("display", coding.display)
            writer.endObject()
        }
        writer.endArray()
        writer.member("text", text)
        writer.endObject()
    }
}
