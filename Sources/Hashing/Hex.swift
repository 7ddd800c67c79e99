/// Hexadecimal text of digests: lowercase out, either case in.
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

    /// The bytes `text` spells as pairs of hex digits (either case); nil for an odd length or any other character.
    package static func bytes(_ text: some StringProtocol) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    private static func value(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
