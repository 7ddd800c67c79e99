extension JSONScanner {
    /// The raw bytes between the quotes of `token` (escapes not resolved).
    package func rawBytes(_ token: StringToken) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: bytes[token.start..<token.end])
    }

    /// The decoded string of a token that ``scanString()`` validated.
    package func string(_ token: StringToken) -> String {
        guard token.hasEscapes else { return String(decoding: rawBytes(token), as: UTF8.self) }
        return String(decoding: unescapedBytes(token), as: UTF8.self)
    }

    /// The UTF-8 bytes of a validated token with every escape resolved (slow path: only for escaped strings).
    package func unescapedBytes(_ token: StringToken) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(token.end - token.start)
        var i = token.start
        while i < token.end {
            let b = bytes[i]
            guard b == 0x5C else {
                out.append(b)
                i += 1
                continue
            }
            let e = bytes[i + 1]
            i += 2
            switch e {
            case 0x62: out.append(0x08)
            case 0x66: out.append(0x0C)
            case 0x6E: out.append(0x0A)
            case 0x72: out.append(0x0D)
            case 0x74: out.append(0x09)
            case 0x75:
                var scalar = hex4(at: i)
                i += 4
                if (0xD800...0xDBFF).contains(scalar) {
                    let low = hex4(at: i + 2)
                    i += 6
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                appendUTF8(scalar, to: &out)
            default: out.append(e)  // " \ /
            }
        }
        return out
    }

    /// Four hex digits already validated by ``scanString()``.
    private func hex4(at index: Int) -> UInt32 {
        var value: UInt32 = 0
        for k in 0..<4 { value = value << 4 | (Self.hexValue(bytes[index + k]) ?? 0) }
        return value
    }

    private func appendUTF8(_ scalar: UInt32, to out: inout [UInt8]) {
        switch scalar {
        case 0..<0x80: out.append(UInt8(scalar))
        case 0x80..<0x800:
            out.append(UInt8(0xC0 | scalar >> 6))
            out.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            out.append(UInt8(0xE0 | scalar >> 12))
            out.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            out.append(UInt8(0x80 | scalar & 0x3F))
        default:
            out.append(UInt8(0xF0 | scalar >> 18))
            out.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            out.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            out.append(UInt8(0x80 | scalar & 0x3F))
        }
    }
}
