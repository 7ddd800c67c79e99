/// Shortest round-trip decimal rendering of doubles, never in exponent form: `71.4`, `8432`, `0.00001`.
package enum JSONNumber {
    /// Appends the rendering of a finite `value` (non-finite values render as `0`; the decoder never admits them).
    package static func append<Sink: JSONByteSink & ~Copyable>(_ value: Double, to out: inout Sink) {
        guard value.isFinite else {
            out.append(0x30)
            return
        }
        if value == value.rounded(.towardZero), abs(value) < 1e15 {
            out.append(utf8: String(Int64(value)))  // also turns -0.0 into 0
            return
        }
        // Swift's description is the shortest string that round-trips; expand any exponent.
        let description = value.description
        let text = description.utf8
        guard let e = text.firstIndex(where: { $0 == 0x65 || $0 == 0x45 }) else {
            out.append(utf8: description)
            return
        }
        let exponent = Int(String(decoding: text[text.index(after: e)...], as: UTF8.self)) ?? 0
        var digits: [UInt8] = []
        var point = 0
        var negative = false
        for b in text[..<e] {
            switch b {
            case 0x2D: negative = true
            case 0x2E: point = digits.count
            default: digits.append(b)
            }
        }
        if !text[..<e].contains(0x2E) { point = digits.count }
        point += exponent
        if negative { out.append(0x2D) }
        if point <= 0 {
            out.append(0x30)
            out.append(0x2E)
            for _ in 0 ..< -point { out.append(0x30) }
            out.append(bytes: digits)
        } else if point >= digits.count {
            out.append(bytes: digits)
            for _ in 0 ..< point - digits.count { out.append(0x30) }
        } else {
            out.append(bytes: Array(digits[..<point]))
            out.append(0x2E)
            out.append(bytes: Array(digits[point...]))
        }
    }

    /// The rendering as a string (tests, fragments).
    package static func string(_ value: Double) -> String {
        var out: [UInt8] = []
        append(value, to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
