extension DailyValue {
    /// The canonical DailyValue v1 event JSON (one line, deterministic member order), as the producer publishes it.
    ///
    /// Values are in the catalog unit, so `unit` is omitted; ``DailyValueDecoder`` reads the line back to an equal
    /// value. `min`, `max`, `version` and `source` appear only when set.
    public func jsonLine() -> String {
        var w = JSONWriter(capacity: 256)
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
        w.endObject()
        return w.string
    }

    /// `±HH:MM` for seconds east of UTC.
    static func formatOffset(_ seconds: Int) -> String {
        let minutes = abs(seconds) / 60
        let hh = minutes / 60
        let mm = minutes % 60
        return (seconds < 0 ? "-" : "+") + (hh < 10 ? "0" : "") + String(hh) + ":" + (mm < 10 ? "0" : "") + String(mm)
    }
}
