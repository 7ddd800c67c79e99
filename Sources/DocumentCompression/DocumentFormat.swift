/// The layout of a stored document: a format byte, then the format's body.
enum DocumentFormat {
    /// A zstd frame without its magic number, whose content is the part table (varints: the number of parts, then
    /// the lengths of all but the last) and then the parts.
    static let zstdWithDictionary: UInt8 = 1
    /// zstd's frame magic number, little-endian (0xFD2FB528): the same in every frame, so not stored.
    static let magic: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD]
    /// Larger decompressed content is refused as corrupt (the mapper's Observations are a few KB at most).
    static let maxContentBytes = 1 << 20
    /// More parts than this are refused as corrupt.
    static let maxParts = 16

    static func appendVarint(_ value: Int, to out: inout [UInt8]) {
        var rest = UInt(value)
        while rest >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        out.append(UInt8(rest))
    }

    /// The varint at `offset`, advancing it; nil when truncated or too long.
    static func readVarint(_ bytes: [UInt8], at offset: inout Int) -> Int? {
        var value = 0
        var shift = 0
        while offset < bytes.count, shift < 35 {
            let byte = bytes[offset]
            offset += 1
            value |= Int(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
        return nil
    }
}
