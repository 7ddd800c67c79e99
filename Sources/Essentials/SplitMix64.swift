/// A small, fast, deterministic pseudo-random generator (Steele, Lea & Flood's SplitMix64).
///
/// The population generator must give byte-identical output for a given `--seed` on every platform and Swift
/// version, so it never uses `SystemRandomNumberGenerator` and never relies on the standard library's unspecified
/// algorithms for ranges of floating-point numbers; every draw goes through ``next()``.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator whose whole stream is determined by `seed`.
    public init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    // MARK: - Draws with a fixed algorithm

    /// A uniform double in `[0, 1)` built from the top 53 bits.
    public mutating func unit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// A uniform double in `range`.
    public mutating func uniform(_ range: ClosedRange<Double>) -> Double {
        range.lowerBound + unit() * (range.upperBound - range.lowerBound)
    }

    /// A uniform integer in `0..<bound` (Lemire's multiply-shift; the tiny bias is irrelevant here).
    public mutating func below(_ bound: Int) -> Int {
        precondition(bound > 0, "bound must be positive")
        return Int(next().multipliedFullWidth(by: UInt64(bound)).high)
    }

    /// A uniform integer in `range`.
    public mutating func integer(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + below(range.upperBound - range.lowerBound + 1)
    }

    /// `true` with probability `probability`.
    public mutating func chance(_ probability: Double) -> Bool {
        probability > 0 && unit() < probability
    }

    /// An approximately normal draw (sum of four uniforms, Irwin–Hall), cheap and deterministic.
    public mutating func normal(mean: Double, deviation: Double) -> Double {
        let sum = unit() + unit() + unit() + unit()
        return mean + (sum - 2) * deviation * 1.732_050_8
    }

    /// Derives an independent child generator, so that adding draws in one part does not shift another part.
    public mutating func split() -> SplitMix64 {
        SplitMix64(seed: next())
    }
}
