extension ZoneRules {
    /// Reads the rules from the bytes of a TZif file (RFC 8536, versions 1 to 4): the 64-bit data block and the
    /// footer of version 2 and later, or the 32-bit block of a version 1 file. `nil` when the bytes are not a
    /// well-formed TZif file.
    init?(identifier: String, tzif bytes: [UInt8]) {
        guard var header = TZifHeader(bytes, at: 0) else { return nil }
        var timeSize = 4
        var start = TZifHeader.size
        if header.version >= 2 {  // skip the 32-bit block: the 64-bit one follows with a header of its own
            guard let second = TZifHeader(bytes, at: start + header.dataSize(timeSize: 4)) else { return nil }
            start += header.dataSize(timeSize: 4) + TZifHeader.size
            header = second
            timeSize = 8
        }
        guard bytes.count >= start + header.dataSize(timeSize: timeSize), header.typeCount > 0 else { return nil }
        func integer(at offset: Int, size: Int) -> Int64 {
            var value: Int64 = 0
            for index in offset..<(offset + size) { value = value << 8 | Int64(bytes[index]) }
            let unused = 64 - 8 * size  // sign-extend a 32-bit value
            return (value << unused) >> unused
        }
        let typesStart = start + header.timeCount * (timeSize + 1)
        let typeOffsets = (0..<header.typeCount).map { Int(integer(at: typesStart + 6 * $0, size: 4)) }
        var transitions: [Int64] = []
        var offsets: [Int] = []
        for index in 0..<header.timeCount {
            let type = Int(bytes[start + header.timeCount * timeSize + index])
            guard type < header.typeCount else { return nil }
            transitions.append(integer(at: start + index * timeSize, size: timeSize))
            offsets.append(typeOffsets[type])
        }
        guard zip(transitions, transitions.dropFirst()).allSatisfy({ $0 < $1 }) else { return nil }
        var footer: PosixZoneRule?
        if header.version >= 2 {
            let footerStart = start + header.dataSize(timeSize: timeSize)
            let text = String(decoding: bytes[min(footerStart, bytes.count)...], as: UTF8.self)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            if lines.count >= 2, lines[0].isEmpty, !lines[1].isEmpty {
                guard let rule = PosixZoneRule(lines[1]) else { return nil }
                footer = rule
            }
        }
        self.init(
            identifier: identifier, transitions: transitions, offsets: offsets, initialOffset: typeOffsets[0],
            footer: footer)
    }
}

/// The 44-byte header of a TZif data block: the version and the counts that size the block.
private struct TZifHeader {
    static let size = 44
    let version: Int
    let utIndicatorCount: Int
    let standardIndicatorCount: Int
    let leapCount: Int
    let timeCount: Int
    let typeCount: Int
    let characterCount: Int

    init?(_ bytes: [UInt8], at offset: Int) {
        guard bytes.count >= offset + Self.size, bytes[offset..<(offset + 4)].elementsEqual("TZif".utf8) else {
            return nil
        }
        let versionByte = bytes[offset + 4]
        version = versionByte == 0 ? 1 : Int(versionByte) - Int(UInt8(ascii: "0"))
        guard (1...9).contains(version) else { return nil }
        let counts = (0..<6).map { index in
            bytes[(offset + 20 + 4 * index)..<(offset + 24 + 4 * index)].reduce(0) { $0 << 8 | Int($1) }
        }
        (utIndicatorCount, standardIndicatorCount, leapCount) = (counts[0], counts[1], counts[2])
        (timeCount, typeCount, characterCount) = (counts[3], counts[4], counts[5])
    }

    /// The bytes of the data block after this header, with transition times of `timeSize` bytes.
    func dataSize(timeSize: Int) -> Int {
        timeCount * (timeSize + 1) + typeCount * 6 + characterCount + leapCount * (timeSize + 4)
            + standardIndicatorCount + utIndicatorCount
    }
}
