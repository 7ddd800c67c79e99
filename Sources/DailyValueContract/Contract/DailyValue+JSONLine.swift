import JSON

extension DailyValue {
    /// The canonical DailyValue v1 event JSON (one line, deterministic member order), as the producer publishes it.
    ///
    /// Values are in the catalog unit, and `unit` names it (the ``Metric/ucum`` of `metric` in `catalog`; an event
    /// without `unit` is rejected for most metrics); ``DailyValueDecoder`` reads the line back to an equal value.
    /// `min`, `max`, `version`, `source` and `status` appear only when set; a panel's parts as objects under their keys.
    public func jsonLine(catalog: MetricCatalog = .builtin) -> String {
        JSONWriter.string(capacity: 512) { w in
            w.beginObject()
            w.key("schema")
            w.value(Int64(Self.schema))
            w.member("patient", patient)
            w.member("metric", metric)
            w.member("day", day)
            switch zone {
            case .timeZone(let name): w.member("timeZone", name)
            case .utcOffset(let seconds): w.member("utcOffset", Self.formatOffset(seconds))
            }
            if let value { Self.writeReading(value: value, min: min, max: max, &w) }
            for part in components {
                w.key(text: part.key)
                w.beginObject()
                Self.writeReading(value: part.value, min: part.min, max: part.max, &w)
                w.endObject()
            }
            if let unit = catalog[metric]?.ucum { w.member("unit", unit) }
            if let version {
                w.key("version")
                w.value(version)
            }
            if let source {
                w.key("source")
                w.beginObject()
                if let name = source.name { w.member("name", name) }
                if let bundleId = source.bundleId { w.member("bundleId", bundleId) }
                if let model = source.model { w.member("model", model) }
                if let version = source.softwareVersion { w.member("softwareVersion", version) }
                w.endObject()
            }
            if let status { w.member("status", status.rawValue) }
            w.endObject()
        }
    }

    private static func writeReading(value: Double, min: Double?, max: Double?, _ w: inout JSONWriter) {
        w.key("value")
        w.value(value)
        if let min {
            w.key("min")
            w.value(min)
        }
        if let max {
            w.key("max")
            w.value(max)
        }
    }

    /// `±HH:MM` for seconds east of UTC.
    static func formatOffset(_ seconds: Int) -> String {
        let minutes = abs(seconds) / 60
        let hh = minutes / 60
        let mm = minutes % 60
        return (seconds < 0 ? "-" : "+") + (hh < 10 ? "0" : "") + String(hh) + ":" + (mm < 10 ? "0" : "") + String(mm)
    }
}
