// Number scanning: the strict JSON grammar, with an exact fast path (Clinger) and strtod for the rest.

extension JSONScanner {
    /// Scans a number per the JSON grammar and parses it (exactly for up to 19 digits and |exp| <= 22).
    package mutating func scanNumber() throws(JSONError) -> NumberToken {
        let start = pos
        let negative = peek == 0x2D
        if negative { pos += 1 }
        var mantissa: UInt64 = 0
        var digits = 0  // significant digits accumulated into mantissa
        var dropped = false  // digits beyond 19 were dropped
        var exponent = 0
        func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
        guard isDigit(peek) else { throw error("invalid number") }
        if peek == 0x30 {
            pos += 1
            if isDigit(peek) { throw error("leading zero in a number") }
        } else {
            while isDigit(peek) {
                accumulate(peek - 0x30, &mantissa, &digits, &dropped, &exponent, fraction: false)
                pos += 1
            }
        }
        var isInteger = true
        if peek == 0x2E {
            isInteger = false
            pos += 1
            guard isDigit(peek) else { throw error("digit expected after the decimal point") }
            while isDigit(peek) {
                accumulate(peek - 0x30, &mantissa, &digits, &dropped, &exponent, fraction: true)
                pos += 1
            }
        }
        if peek == 0x65 || peek == 0x45 {
            isInteger = false
            pos += 1
            var expNegative = false
            if peek == 0x2B || peek == 0x2D {
                expNegative = peek == 0x2D
                pos += 1
            }
            guard isDigit(peek) else { throw error("digit expected in the exponent") }
            var e = 0
            while isDigit(peek) {
                e = Swift.min(e * 10 + Int(peek - 0x30), 100_000)
                pos += 1
            }
            exponent += expNegative ? -e : e
        }
        let int64: Int64? =
            isInteger && !dropped && exponent == 0 && mantissa <= UInt64(Int64.max)
            ? (negative ? -Int64(mantissa) : Int64(mantissa)) : nil
        let double: Double
        if !dropped, mantissa <= 1 << 53, (-22...22).contains(exponent) {
            let m = Double(mantissa)
            let scaled = exponent < 0 ? m / Self.powersOf10[-exponent] : m * Self.powersOf10[exponent]
            double = negative ? -scaled : scaled
        } else {
            // Rare slow path: many digits or a large exponent; strtod rounds correctly.
            let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<pos]), as: UTF8.self)
            double = Double(text) ?? .nan
        }
        return NumberToken(double: double, int64: int64, lastDigitExponent: exponent)
    }

    private func accumulate(
        _ digit: UInt8, _ mantissa: inout UInt64, _ digits: inout Int, _ dropped: inout Bool, _ exponent: inout Int,
        fraction: Bool
    ) {
        if digits == 0 && digit == 0 {
            if fraction { exponent -= 1 }  // leading zeros carry no significance
            return
        }
        if digits < 19 {
            mantissa = mantissa * 10 + UInt64(digit)
            digits += 1
            if fraction { exponent -= 1 }
        } else {
            if digit != 0 { dropped = true }
            if !fraction { exponent += 1 }
        }
    }

    private static let powersOf10: [Double] = (0...22).map { e in
        var p = 1.0
        for _ in 0..<e { p *= 10 }
        return p
    }
}
