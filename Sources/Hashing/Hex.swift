/// Lowercase hexadecimal text of digests.
package enum Hex {
    /// `bytes` as lowercase hex digits, two per byte.
    package static func lowercase(_ bytes: [UInt8]) -> String {
        bytes.withUnsafeBytes { lowercase($0) }
    }

    /// `bytes` as lowercase hex digits, two per byte, written straight into the new string's storage.
    package static func lowercase(_ bytes: UnsafeRawBufferPointer) -> String {
        let digits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            for (index, byte) in bytes.enumerated() {
                out[2 * index] = digits.utf8Start[Int(byte >> 4)]
                out[2 * index + 1] = digits.utf8Start[Int(byte & 0xF)]
            }
            return bytes.count * 2
        }
    }
}
