/// Lowercase hexadecimal text of digests.
package enum Hex {
    /// `bytes` as lowercase hex digits, two per byte.
    package static func lowercase(_ bytes: [UInt8]) -> String {
        let digits: StaticString = "0123456789abcdef"
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits.utf8Start[Int(byte >> 4)])
            out.append(digits.utf8Start[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
