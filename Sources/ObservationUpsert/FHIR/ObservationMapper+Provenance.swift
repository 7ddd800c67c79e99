import DailyValueContract
import Essentials

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
        w.raw(constants.provenanceOpening, leavesOpen: true)
        if let name { writeStringExtension(constants.nameOpening, name, &w) }
        if let bundleId { writeStringExtension(constants.bundleIdOpening, bundleId, &w) }
        if let model = source.model { writeStringExtension(constants.modelOpening, model, &w) }
        if let version = source.softwareVersion { writeStringExtension(constants.softwareVersionOpening, version, &w) }
        w.endArray()
        w.endObject()
        w.endArray()
    }

    /// `bundleId` without its device-identifier segments; `nil` when nothing else is left. Read in place: every
    /// event passes here, and almost every bundle id is returned as it came (nothing is allocated).
    static func bundleIdWithoutDeviceIDs(_ bundleId: String) -> String? {
        bundleId.withUTF8Bytes { bytes in
            var hasDeviceID = false
            forEachSegment(of: bytes) { hasDeviceID = hasDeviceID || isDeviceID($0) }
            guard hasDeviceID else { return bundleId }
            var kept: [String] = []
            forEachSegment(of: bytes) { if !isDeviceID($0) { kept.append(String(decoding: $0, as: UTF8.self)) } }
            return kept.isEmpty ? nil : kept.joined(separator: ".")
        }
    }

    /// Calls `body` with each `.`-separated segment of `bytes`, empty ones included.
    private static func forEachSegment(
        of bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Void
    ) {
        var start = 0
        for index in 0...bytes.count where index == bytes.count || bytes[index] == UInt8(ascii: ".") {
            body(UnsafeBufferPointer(rebasing: bytes[start..<index]))
            start = index + 1
        }
    }

    /// A UUID (8-4-4-4-12 hex digits) or a run of 16 or more hex digits.
    private static func isDeviceID(_ segment: UnsafeBufferPointer<UInt8>) -> Bool {
        guard segment.count >= 16 else { return false }
        if segment.allSatisfy(isHexDigit) { return true }
        guard segment.count == 36 else { return false }
        for (offset, byte) in segment.enumerated() {
            let isDashPosition = offset == 8 || offset == 13 || offset == 18 || offset == 23
            guard isDashPosition ? byte == UInt8(ascii: "-") : isHexDigit(byte) else { return false }
        }
        return true
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }

    /// One `{"url":"<field>","valueString":"…"}`, its opening pre-rendered (``ConfiguredFragments``).
    private func writeStringExtension(_ opening: [UInt8], _ value: String, _ w: inout JSONWriter) {
        w.raw(opening, leavesOpen: true)
        w.value(value)
        w.endObject()
    }
}
