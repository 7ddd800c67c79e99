/// Base64url without padding (RFC 4648 §5, as JOSE uses it: RFC 7515 §2): the package's one encoder and
/// decoder.
///
/// The decoder is strict: only the URL-safe alphabet (`A–Z a–z 0–9 - _`), no padding, no whitespace, and the unused
/// low bits of the last character must be zero, so each byte string has exactly one accepted spelling.
package enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Each byte's 6-bit value, or 0xFF for a byte outside the alphabet.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, character) in alphabet.enumerated() { table[Int(character)] = UInt8(value) }
        return table
    }()

    /// `bytes` as base64url text without padding.
    package static func encode(_ bytes: some Collection<UInt8>) -> String {
        let input = Array(bytes)
        var out = [UInt8]()
        out.reserveCapacity((input.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= input.count {
            let group = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            for shift in [18, 12, 6, 0] { out.append(alphabet[Int(group >> UInt32(shift) & 0x3F)]) }
            index += 3
        }
        let rest = input.count - index
        if rest > 0 {
            let group = UInt32(input[index]) << 16 | (rest == 2 ? UInt32(input[index + 1]) << 8 : 0)
            out.append(alphabet[Int(group >> 18 & 0x3F)])
            out.append(alphabet[Int(group >> 12 & 0x3F)])
            if rest == 2 { out.append(alphabet[Int(group >> 6 & 0x3F)]) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes `text` encodes; nil when it is not canonical unpadded base64url.
    package static func decode(_ text: some StringProtocol) -> [UInt8]? {
        var text = String(text)
        return text.withUTF8 { decode(UnsafeRawBufferPointer($0)) }
    }

    /// The bytes `encoded` (base64url characters) stands for; nil when it is not canonical unpadded base64url.
    package static func decode(_ encoded: UnsafeRawBufferPointer) -> [UInt8]? {
        // A length of 1 modulo 4 cannot end a base64 string: one character holds only 6 bits.
        guard encoded.count % 4 != 1 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(encoded.count * 3 / 4)
        var group: UInt32 = 0
        var count = 0
        for character in encoded {
            let value = values[Int(character)]
            guard value != 0xFF else { return nil }
            group = group << 6 | UInt32(value)
            count += 1
            if count == 4 {
                out.append(UInt8(group >> 16 & 0xFF))
                out.append(UInt8(group >> 8 & 0xFF))
                out.append(UInt8(group & 0xFF))
                group = 0
                count = 0
            }
        }
        switch count {
        case 2:
            guard group & 0xF == 0 else { return nil }
            out.append(UInt8(group >> 4 & 0xFF))
        case 3:
            guard group & 0x3 == 0 else { return nil }
            out.append(UInt8(group >> 10 & 0xFF))
            out.append(UInt8(group >> 2 & 0xFF))
        default:
            break
        }
        return out
    }
}
