import Essentials

/// How the population generator draws realistic daily values for one metric.
///
/// This is the generator's own model, deliberately independent of the domain's `MetricCatalog`: the generator's
/// oracle must not be derived from the code it checks. A test asserts that every profile's key and unit are
/// accepted by the catalog and that its values stay inside the catalog's plausible range.
public struct MetricProfile: Sendable, Hashable {
    /// How a day's value is aggregated, which decides how re-deliveries change it.
    public enum Shape: Sendable, Hashable {
        /// A cumulative sum (steps, energy): later recomputations of a day only grow.
        case cumulative
        /// A discrete mean with the day's minimum and maximum.
        case meanWithRange
        /// A discrete value without range (resting heart rate, weight).
        case single
    }

    /// The DailyValue `metric` key, e.g. `heart_rate`.
    public var key: String
    /// The UCUM code sent in `unit`, e.g. `/min`.
    public var unit: String
    public var shape: Shape
    /// A person's own baseline is drawn uniformly from this range, once per person.
    public var baseline: ClosedRange<Double>
    /// Day-to-day noise: the standard deviation, relative to the baseline when `relativeNoise` is set.
    public var noise: Double
    public var relativeNoise: Bool
    /// A person's slow drift per day (e.g. body weight), drawn once per person from this range.
    public var driftPerDay: ClosedRange<Double>
    /// How far below the mean the day's minimum lies, and how far above the maximum (``Shape/meanWithRange``).
    public var rangeBelow: ClosedRange<Double>
    public var rangeAbove: ClosedRange<Double>
    /// Values are clamped into these bounds (inside the catalog's plausible range).
    public var bounds: ClosedRange<Double>
    /// Decimal places sent.
    public var decimals: Int
    /// The share of days on which a person has a value (weight is not measured daily).
    public var dailyProbability: Double
    /// A value far outside any plausible range, used for the `out_of_range` invalid class.
    public var absurdValue: Double
    /// A panel's parts (blood pressure: `systolic`, `diastolic`), each drawn by its own profile and sent as an
    /// object `{"value", "min"?, "max"?}` instead of `value`; empty for a single-quantity metric.
    public var parts: [MetricProfile]

    public init(
        key: String, unit: String, shape: Shape, baseline: ClosedRange<Double>, noise: Double,
        relativeNoise: Bool = false, driftPerDay: ClosedRange<Double> = 0...0,
        rangeBelow: ClosedRange<Double> = 0...0, rangeAbove: ClosedRange<Double> = 0...0,
        bounds: ClosedRange<Double>, decimals: Int = 0, dailyProbability: Double = 1, absurdValue: Double,
        parts: [MetricProfile] = []
    ) {
        self.key = key
        self.unit = unit
        self.shape = shape
        self.baseline = baseline
        self.noise = noise
        self.relativeNoise = relativeNoise
        self.driftPerDay = driftPerDay
        self.rangeBelow = rangeBelow
        self.rangeAbove = rangeAbove
        self.bounds = bounds
        self.decimals = decimals
        self.dailyProbability = dailyProbability
        self.absurdValue = absurdValue
        self.parts = parts
    }

    /// A panel: the parts' own profiles draw the readings; `bounds` is the union of theirs.
    public static func panel(
        key: String, unit: String, parts: [MetricProfile], dailyProbability: Double, absurdValue: Double
    ) -> MetricProfile {
        let low = parts.map(\.bounds.lowerBound).min() ?? 0
        let high = parts.map(\.bounds.upperBound).max() ?? 0
        return MetricProfile(
            key: key, unit: unit, shape: .meanWithRange, baseline: low...high, noise: 0, bounds: low...high,
            dailyProbability: dailyProbability, absurdValue: absurdValue, parts: parts)
    }

    // MARK: - Drawing

    /// One day's value (and range) for a person whose stable traits come from `person`.
    ///
    /// - Parameters:
    ///   - person: a generator seeded by (seed, patient, metric) only, so the baseline and drift are stable.
    ///   - day: a generator seeded by (seed, patient, metric, day).
    ///   - dayIndex: days since the start day, for the drift.
    func draw(person: SplitMix64, day: inout SplitMix64, dayIndex: Int) -> (value: Double, min: Double?, max: Double?) {
        var person = person
        let base = person.uniform(baseline) + person.uniform(driftPerDay) * Double(dayIndex)
        let deviation = relativeNoise ? noise * base : noise
        let value = clamp(day.normal(mean: base, deviation: deviation))
        guard shape == .meanWithRange else { return (value, nil, nil) }
        let low = clamp(value - day.uniform(rangeBelow))
        let high = clamp(value + day.uniform(rangeAbove))
        return (value, Swift.min(low, value), Swift.max(high, value))
    }

    /// Rounds to the profile's decimals and clamps into ``bounds``.
    func clamp(_ value: Double) -> Double {
        let scale = decimals == 0 ? 1 : Double(repeating10: decimals)
        let rounded = (value * scale).rounded() / scale
        return Swift.min(Swift.max(rounded, bounds.lowerBound), bounds.upperBound)
    }
}

extension Double {
    /// `10^exponent` for small non-negative exponents, without Foundation's `pow`.
    fileprivate init(repeating10 exponent: Int) {
        var result = 1.0
        for _ in 0..<exponent { result *= 10 }
        self = result
    }
}
