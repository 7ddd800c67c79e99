import DailyValueContract

// HKSource provenance, written once: one extension (the configured URL) with the source's bundle id, model and
// software version. No contained Device: it would repeat the same facts (issue 12). The free-text device name is
// PHI ("Jane Doe's Apple Watch") and is written only with the documented opt-in `storesDeviceName`.
//
// Bundle ids: segments that look like per-device identifiers (a UUID, or 16+ hex digits) are dropped, so
// `com.example.app.8F2C1A77-0000-4E5B-9D1A-5A5C0B7E4C11` is stored as `com.example.app`.

extension ObservationMapper {
    /// Writes the `extension` for `source`, when anything of it is kept.
    func writeProvenance(_ source: DailyValue.Source?, _ w: inout JSONWriter) {
        guard let source else { return }
        let name = configuration.storesDeviceName ? source.name : nil
        let bundleId = source.bundleId.flatMap(Self.bundleIdWithoutDeviceIDs)
        guard name != nil || bundleId != nil || source.model != nil || source.softwareVersion != nil else { return }
        w.key("extension")
        w.beginArray()
        w.beginObject()
        w.member("url", configuration.sourceExtensionURL)
        w.key("extension")
        w.beginArray()
        if let name { writeStringExtension("name", name, &w) }
        if let bundleId { writeStringExtension("bundleIdentifier", bundleId, &w) }
        if let model = source.model { writeStringExtension("model", model, &w) }
        if let version = source.softwareVersion { writeStringExtension("softwareVersion", version, &w) }
        w.endArray()
        w.endObject()
        w.endArray()
    }

    /// `bundleId` without its device-identifier segments; `nil` when nothing else is left.
    static func bundleIdWithoutDeviceIDs(_ bundleId: String) -> String? {
        let kept = bundleId.split(separator: ".", omittingEmptySubsequences: false).filter { !isDeviceID($0) }
        return kept.isEmpty ? nil : kept.joined(separator: ".")
    }

    /// A UUID (8-4-4-4-12 hex digits) or a run of 16 or more hex digits.
    private static func isDeviceID(_ segment: Substring) -> Bool {
        let utf8 = Array(segment.utf8)
        let isHex = { (b: UInt8) in (0x30...0x39).contains(b) || (0x41...0x46).contains(b) || (0x61...0x66).contains(b)
        }
        if utf8.count >= 16, utf8.allSatisfy(isHex) { return true }
        let groups = segment.split(separator: "-", omittingEmptySubsequences: false).map(\.utf8.count)
        return groups == [8, 4, 4, 4, 12] && utf8.allSatisfy { isHex($0) || $0 == 0x2D }
    }

    private func writeStringExtension(_ url: String, _ value: String, _ w: inout JSONWriter) {
        w.beginObject()
        w.member("url", url)
        w.member("valueString", value)
        w.endObject()
    }
}
