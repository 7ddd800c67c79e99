import DailyValueContract
import Essentials
import JSON

// HKSource provenance, written once: one extension (the configured URL) with the source's bundle id, model and
// software version. No contained Device: it would repeat the same facts (issue 12). The free-text device name is
// PHI ("Jane Doe's Apple Watch") and is written only with the documented opt-in `storesDeviceName`.
//
// Bundle ids: segments that look like per-device identifiers (a UUID, or 16+ hex digits) are dropped
// (``SourceProvenance/bundleIdWithoutDeviceIDs(_:)``): the decoder does it before the stored cap, the mapper again
// for values built in code.

extension ObservationMapper {
    /// Writes the `extension` for `source`, when anything of it is kept.
    func writeProvenance(_ source: DailyValue.Source?, _ w: inout JSONWriter) {
        guard let source else { return }
        let name = configuration.storesDeviceName ? source.name : nil
        let bundleId = source.bundleId.flatMap(SourceProvenance.bundleIdWithoutDeviceIDs)
        let model = source.model.flatMap { SourceProvenance.isHardwareModel($0) ? $0 : nil }
        guard name != nil || bundleId != nil || model != nil || source.softwareVersion != nil else { return }
        w.raw(constants.provenanceOpening, leavesOpen: true)
        if let name { writeStringExtension(constants.nameOpening, name, &w) }
        if let bundleId { writeStringExtension(constants.bundleIdOpening, bundleId, &w) }
        if let model { writeStringExtension(constants.modelOpening, model, &w) }
        if let version = source.softwareVersion { writeStringExtension(constants.softwareVersionOpening, version, &w) }
        w.endArray()
        w.endObject()
        w.endArray()
    }

    /// One `{"url":"<field>","valueString":"…"}`, its opening pre-rendered (``ConfiguredFragments``).
    private func writeStringExtension(_ opening: [UInt8], _ value: String, _ w: inout JSONWriter) {
        w.raw(opening, leavesOpen: true)
        w.value(value)
        w.endObject()
    }
}
