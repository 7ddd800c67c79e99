import DailyValueContract

// HKSource provenance: a contained Device (name, model, software version) referenced from `Observation.device`,
// and an extension carrying every source field, including the bundle id (not a URI, so not for `meta.source`).

extension ObservationMapper {
    /// Writes `contained` and `extension` for `source`; returns whether a Device `#dev` was written.
    func writeProvenance(_ source: DailyValue.Source?, _ w: inout JSONWriter) -> Bool {
        guard let source else { return false }
        let hasDevice = source.name != nil || source.model != nil || source.softwareVersion != nil
        if hasDevice {
            w.key("contained")
            w.beginArray()
            w.beginObject()
            w.member("resourceType", "Device")
            w.member("id", "dev")
            if source.name != nil || source.model != nil {
                w.key("deviceName")
                w.beginArray()
                if let name = source.name { writeDeviceName(name, type: "user-friendly-name", &w) }
                if let model = source.model { writeDeviceName(model, type: "model-name", &w) }
                w.endArray()
            }
            if let version = source.softwareVersion {
                w.key("version")
                w.beginArray()
                w.beginObject()
                w.key("type")
                w.beginObject()
                w.member("text", "software")
                w.endObject()
                w.member("value", version)
                w.endObject()
                w.endArray()
            }
            w.endObject()
            w.endArray()
        }
        w.key("extension")
        w.beginArray()
        w.beginObject()
        w.member("url", configuration.sourceExtensionURL)
        w.key("extension")
        w.beginArray()
        if let name = source.name { writeStringExtension("name", name, &w) }
        if let bundleId = source.bundleId { writeStringExtension("bundleIdentifier", bundleId, &w) }
        if let model = source.model { writeStringExtension("model", model, &w) }
        if let version = source.softwareVersion { writeStringExtension("softwareVersion", version, &w) }
        w.endArray()
        w.endObject()
        w.endArray()
        return hasDevice
    }

    private func writeDeviceName(_ name: String, type: String, _ w: inout JSONWriter) {
        w.beginObject()
        w.member("name", name)
        w.member("type", type)
        w.endObject()
    }

    private func writeStringExtension(_ url: String, _ value: String, _ w: inout JSONWriter) {
        w.beginObject()
        w.member("url", url)
        w.member("valueString", value)
        w.endObject()
    }
}
