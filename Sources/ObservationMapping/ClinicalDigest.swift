import Hashing

/// The first 16 bytes of the SHA-256 of a clinical value's canonical JSON (``ObservationRecord/clinicalValue``): what
/// the stores keep and compare to tell an equal value from a different one (`amended`, `conflict`;
/// docs/LIFECYCLE.md) in 16 bytes instead of the few hundred of the JSON. Two different values share a digest with a
/// probability of 2⁻¹²⁸.
package enum ClinicalDigest {
    package static let size = 16

    package static func of(_ utf8: ArraySlice<UInt8>) -> [UInt8] {
        utf8.withUnsafeBytes { SHA256.digest($0, prefix: size) }
    }

    package static func of(_ utf8: [UInt8]) -> [UInt8] { of(utf8[...]) }
}
