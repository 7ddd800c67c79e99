/// A strict, allocation-free RFC 8259 tokenizer over one message's bytes.
///
/// It validates as it goes: UTF-8 (no overlongs, surrogates or code points above U+10FFFF), string escapes
/// (including surrogate pairs), the number grammar (so `NaN`, `Infinity`, `+1`, `01`, `1.` are errors) and a nesting
/// limit when skipping values. Every read is bounds-checked: any byte sequence ends in a token or a typed error.
package struct JSONScanner {
    /// A string token: the byte range between the quotes, and whether it contains escapes.
    package struct StringToken {
        package var start: Int
        package var end: Int
        package var hasEscapes: Bool
    }

    /// A number token with its parsed forms.
    package struct NumberToken {
        /// The value as a double (may be infinite on overflow).
        package var double: Double
        /// The value as Int64 when the token is a plain integer that fits (no fraction, no exponent).
        package var int64: Int64?
        /// The power of ten of the last digit sent: 0 for `180`, -1 for `3.9` and `180.0`, -2 for `7.25`. The
        /// precision the sender claims; a converted value is rounded to it (``UnitConversion``).
        package var lastDigitExponent: Int = 0
    }

    package let bytes: UnsafeRawBufferPointer
    /// The next byte to read.
    package var pos = 0

    package init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// Moves to a byte offset captured earlier from ``pos``.
    package mutating func seek(to offset: Int) { pos = Swift.min(Swift.max(offset, 0), bytes.count) }

    // MARK: - Basics

    package var isAtEnd: Bool { pos >= bytes.count }

    /// The current byte, or 0 at the end (0 is never valid JSON outside strings).
    package var peek: UInt8 { pos < bytes.count ? bytes[pos] : 0 }

    package mutating func skipWhitespace() {
        while pos < bytes.count {
            let b = bytes[pos]
            guard b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 else { return }
            pos += 1
        }
    }

    package func error(_ rule: String) -> JSONError {
        JSONError(.syntax, "\(rule) at byte \(pos)")
    }

    /// Consumes `byte` after optional whitespace, or throws.
    package mutating func expect(_ byte: UInt8, _ what: String) throws(JSONError) {
        skipWhitespace()
        guard peek == byte else { throw error("expected \(what)") }
        pos += 1
    }

    /// Consumes `byte` after optional whitespace if it is next.
    package mutating func consume(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard peek == byte else { return false }
        pos += 1
        return true
    }

    // MARK: - Literals

    /// Consumes `true`, `false` or `null`; returns false if the next token is none of them.
    package mutating func consumeLiteral(_ literal: StaticString) -> Bool {
        let n = literal.utf8CodeUnitCount
        guard pos + n <= bytes.count else { return false }
        let p = literal.utf8Start
        for i in 0..<n where bytes[pos + i] != p[i] { return false }
        pos += n
        return true
    }

    // MARK: - Strings

    /// Scans a string starting at `"`, validating UTF-8 and escapes.
    package mutating func scanString() throws(JSONError) -> StringToken {
        guard peek == 0x22 else { throw error("expected a string") }
        pos += 1
        let start = pos
        var escapes = false
        while pos < bytes.count {
            // Eight plain ASCII bytes at a time (no quote, backslash, control or non-ASCII byte among them).
            if pos + 8 <= bytes.count, Self.isPlainASCII(bytes.loadUnaligned(fromByteOffset: pos, as: UInt64.self)) {
                pos += 8
                continue
            }
            let b = bytes[pos]
            if b == 0x22 {
                let token = StringToken(start: start, end: pos, hasEscapes: escapes)
                pos += 1
                return token
            } else if b == 0x5C {
                escapes = true
                try scanEscape()
            } else if b < 0x20 {
                throw error("unescaped control character in a string")
            } else if b < 0x80 {
                pos += 1
            } else {
                try scanUTF8Sequence(lead: b)
            }
        }
        throw error("unterminated string")
    }

    /// Whether each byte of `word` is in 0x20...0x7F and is neither `"` nor `\` (SWAR: a byte-wise "less than" /
    /// "equals zero" test on the whole word; exact, no false answers either way).
    package static func isPlainASCII(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ v: UInt64) -> Bool { (v &- ones) & ~v & highs != 0 }
        let hasControl = (word &- ones &* 0x20) & ~word & highs != 0
        return word & highs == 0 && !hasControl && !hasZeroByte(word ^ (ones &* 0x22))
            && !hasZeroByte(word ^ (ones &* 0x5C))
    }

    private mutating func scanEscape() throws(JSONError) {
        pos += 1  // the backslash
        switch peek {
        case 0x22, 0x5C, 0x2F, 0x62, 0x66, 0x6E, 0x72, 0x74: pos += 1
        case 0x75:
            pos += 1
            let unit = try hex4()
            if (0xD800...0xDBFF).contains(unit) {
                guard consumeLiteral("\\u") else { throw error("unpaired UTF-16 surrogate escape") }
                guard (0xDC00...0xDFFF).contains(try hex4()) else { throw error("unpaired UTF-16 surrogate escape") }
            } else if (0xDC00...0xDFFF).contains(unit) {
                throw error("unpaired UTF-16 surrogate escape")
            }
        default: throw error("invalid escape sequence")
        }
    }

    private mutating func hex4() throws(JSONError) -> UInt32 {
        guard pos + 4 <= bytes.count else { throw error("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = Self.hexValue(bytes[pos]) else { throw error("invalid \\u escape") }
            value = value << 4 | digit
            pos += 1
        }
        return value
    }

    package static func hexValue(_ b: UInt8) -> UInt32? {
        switch b {
        case 0x30...0x39: UInt32(b - 0x30)
        case 0x41...0x46: UInt32(b - 0x41 + 10)
        case 0x61...0x66: UInt32(b - 0x61 + 10)
        default: nil
        }
    }

    /// Validates one multi-byte UTF-8 sequence (Unicode 15 table 3-7) starting at `pos`.
    private mutating func scanUTF8Sequence(lead: UInt8) throws(JSONError) {
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: throw error("invalid UTF-8")
        }
        guard pos + length <= bytes.count else { throw error("truncated UTF-8 sequence") }
        let second = bytes[pos + 1]
        guard second >= low, second <= high else { throw error("invalid UTF-8") }
        for i in 2..<max(length, 2) where bytes[pos + i] & 0xC0 != 0x80 { throw error("invalid UTF-8") }
        pos += length
    }

    // MARK: - Skipping

    /// Skips any value (for unknown fields), enforcing `maxDepth` for nested containers.
    package mutating func skipValue(depth: Int, maxDepth: Int) throws(JSONError) {
        skipWhitespace()
        switch peek {
        case 0x22: _ = try scanString()
        case 0x2D, 0x30...0x39: _ = try scanNumber()
        case 0x7B, 0x5B:
            guard depth < maxDepth else { throw error("nesting deeper than \(maxDepth)") }
            let close: UInt8 = peek == 0x7B ? 0x7D : 0x5D
            let isObject = close == 0x7D
            pos += 1
            if consume(close) { return }
            repeat {
                if isObject {
                    skipWhitespace()
                    _ = try scanString()
                    try expect(0x3A, "':'")
                }
                try skipValue(depth: depth + 1, maxDepth: maxDepth)
            } while consume(0x2C)
            try expect(close, isObject ? "',' or '}'" : "',' or ']'")
        default:
            guard consumeLiteral("true") || consumeLiteral("false") || consumeLiteral("null") else {
                throw error(isAtEnd ? "unexpected end of input" : "invalid value")
            }
        }
    }
}
