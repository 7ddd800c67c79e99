/// The few `printf` formats the tools print (`%04d`, `%.1f`), without Foundation's `String(format:)` (which brings
/// ICU into every binary).
package enum FixedFormat {
    /// `value` in decimal, zero-padded on the left to `width` characters, a minus sign included (`%0<width>d`).
    package static func digits(_ value: Int, width: Int) -> String {
        let magnitude = String(value.magnitude)
        let sign = value < 0 ? "-" : ""
        return sign + String(repeating: "0", count: max(0, width - sign.count - magnitude.count)) + magnitude
    }

    /// `value` rounded to `places` decimals, written without an exponent (`%.<places>f`; halves away from zero).
    package static func decimals(_ value: Double, _ places: Int) -> String {
        guard value.isFinite else { return String(value) }
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let scaled = (abs(value) * scale).rounded(.toNearestOrAwayFromZero)
        guard scaled < 9e18 else { return String(value) }
        let units = UInt64(scaled)
        let whole = units / UInt64(scale)
        let fraction = units % UInt64(scale)
        let sign = value < 0 && units > 0 ? "-" : ""
        guard places > 0 else { return sign + String(whole) }
        let digits = String(fraction)
        return sign + String(whole) + "." + String(repeating: "0", count: places - digits.count) + digits
    }
}
