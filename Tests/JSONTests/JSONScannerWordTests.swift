import Essentials
import JSON
import Testing

/// The scanner skips eight plain ASCII string bytes at a time; the word test must agree with a byte-by-byte check.
@Suite struct JSONScannerWordTests {
    static func reference(_ word: UInt64) -> Bool {
        (0..<8).allSatisfy { shift in
            let byte = UInt8(truncatingIfNeeded: word >> (8 * UInt64(shift)))
            return byte >= 0x20 && byte < 0x80 && byte != 0x22 && byte != 0x5C
        }
    }

    @Test("every byte value at every position of an otherwise plain word")
    func everyByteAtEveryPosition() {
        let plain = UInt64(0x6161_6161_6161_6161)  // "aaaaaaaa"
        for position in 0..<8 {
            for value in 0...255 {
                let shift = UInt64(8 * position)
                let word = plain & ~(0xFF << shift) | UInt64(value) << shift
                #expect(JSONScanner.isPlainASCII(word) == Self.reference(word), "byte \(value) at \(position)")
            }
        }
    }

    @Test("random words, and words whose bytes all sit next to the limits")
    func randomWords() {
        var generator = SplitMix64(seed: 0x5EA2_A5C1_1000_0001)
        let edges: [UInt8] = [0x00, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x7E, 0x7F, 0x80, 0xFF]
        for _ in 0..<200_000 {
            let word = generator.next() as UInt64
            #expect(JSONScanner.isPlainASCII(word) == Self.reference(word))
            var edgy: UInt64 = 0
            for _ in 0..<8 { edgy = edgy << 8 | UInt64(edges.randomElement(using: &generator)!) }
            #expect(JSONScanner.isPlainASCII(edgy) == Self.reference(edgy))
        }
    }
}
