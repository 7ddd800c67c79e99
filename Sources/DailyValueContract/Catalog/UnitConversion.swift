#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// How a value sent in an alias unit becomes a value in the catalog unit: `(sent + offset) × factor`, e.g. `[lb_av]`
/// → kg (× 0.45359237) or `[degF]` → Cel (offset −32, × 5/9).
///
/// Rounding (docs/CLINICAL.md, "Converted values"): the plausibility checks see the exact conversion; the stored value
/// keeps the precision the sender claimed. One unit of the sent value's last digit, converted, is the value's
/// resolution; the stored value is rounded to the first decimal place finer than that resolution (never to tens):
/// 180 lb (±1 lb = 0.45 kg) → 81.6 kg, 180.4 lb → 81.83 kg, 3.9 mmol/L (±0.1 = 1.8 mg/dL) → 70 mg/dL. Exact
/// conversions by a power of ten or an integer keep every digit (0.975 → 97.5 %, 8 h → 480 min).
public struct UnitConversion: Sendable, Hashable {
    public let factor: Double
    public let offset: Double

    public init(factor: Double, offset: Double = 0) {
        self.factor = factor
        self.offset = offset
    }

    /// The catalog unit itself.
    public static let identity = UnitConversion(factor: 1)

    public var isIdentity: Bool { factor == 1 && offset == 0 }

    /// `(value + offset) × factor`, cleaned to 9 decimal places (0.57 × 100 is 57, not 56.99999999999999).
    public func exact(_ value: Double) -> Double {
        guard !isIdentity else { return value }
        return Self.rounded((value + offset) * factor, decimals: 9)
    }

    /// The value in the sent unit of a catalog-unit bound, cleaned to 9 decimal places (the schema's bounds).
    public func inverse(_ catalogValue: Double) -> Double {
        Self.rounded(catalogValue / factor - offset, decimals: 9)
    }

    /// `exact` (a converted value) rounded to the precision of the sent value whose last digit is at
    /// `10^lastDigitExponent`.
    public func stored(_ exact: Double, lastDigitExponent: Int) -> Double {
        guard !isIdentity else { return exact }
        let resolution = pow(10, Double(lastDigitExponent)) * factor
        let decimals = Swift.min(9, Swift.max(0, -Int(log10(resolution).rounded(.down))))
        return Self.rounded(exact, decimals: decimals)
    }

    private static func rounded(_ value: Double, decimals: Int) -> Double {
        guard abs(value) < 1e6 else { return value }
        let scale = pow(10, Double(decimals))
        return (value * scale).rounded() / scale
    }
}
