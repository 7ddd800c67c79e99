import Essentials

/// The rules that keep HKSource provenance free of per-device and personal text (docs/CLINICAL.md, "Provenance
/// without PHI"): device-identifier segments of a bundle id, and models that are not hardware model identifiers.
public enum SourceProvenance {
    /// Whether `model` is a hardware model identifier: letters, digits, a comma, digits (`Watch7,3`, `iPhone14,5`,
    /// `iPad13,16`). A name the user gave the device (`Jane Doe's iPhone`) or a marketing name is not.
    public static func isHardwareModel(_ model: String) -> Bool {
        model.withUTF8Bytes { bytes in
            var index = 0
            func run(_ accepts: (UInt8) -> Bool) -> Int {
                let start = index
                while index < bytes.count, accepts(bytes[index]) { index += 1 }
                return index - start
            }
            let isDigit = { (b: UInt8) in (0x30...0x39).contains(b) }
            let isLetter = { (b: UInt8) in (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) }
            guard run(isLetter) > 0, run(isDigit) > 0, index < bytes.count, bytes[index] == UInt8(ascii: ",") else {
                return false
            }
            index += 1
            return run(isDigit) > 0 && index == bytes.count
        }
    }

    /// `bundleId` without its device-identifier segments; `nil` when nothing else is left. Read in place: every
    /// event passes here, and almost every bundle id is returned as it came (nothing is allocated).
    ///
    /// Once a device identifier is dropped, so are empty and blank segments: `com.x.<UUID>.` is `com.x`, and
    /// `.<UUID>` leaves nothing (not an empty id, which the contract rejects).
    public static func bundleIdWithoutDeviceIDs(_ bundleId: String) -> String? {
        bundleId.withUTF8Bytes { bytes in
            var hasDeviceID = false
            forEachSegment(of: bytes) { hasDeviceID = hasDeviceID || isDeviceID($0) }
            guard hasDeviceID else { return bundleId }
            var kept: [String] = []
            forEachSegment(of: bytes) { segment in
                let isBlank = !segment.contains { $0 != UInt8(ascii: " ") }
                if !isBlank && !isDeviceID(segment) { kept.append(String(decoding: segment, as: UTF8.self)) }
            }
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
}
