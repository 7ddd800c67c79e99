/// One catalog entry: how a DailyValue metric key is coded, measured, aggregated and checked.
///
/// Built-in entries live in `MetricCatalog+Builtin.swift`; a deployment can override or add entries from a JSON
/// file (``MetricCatalog/load(overridesFrom:)``).
public struct Metric: Sendable, Hashable, Codable {
    /// How HealthKit's daily statistic for this metric is computed.
    public enum Aggregation: String, Sendable, Hashable, Codable, CaseIterable {
        /// Cumulative types: the day's sum (`cumulativeSum`).
        case sum
        /// Discrete types: the day's average, with optional minimum and maximum.
        case mean
        /// Discrete, sporadic types: the day's most recent sample.
        case latest
        /// Discrete types whose day is judged by its peak (UV index): the day's highest sample (`discreteMax`).
        case maximum
    }

    /// The FHIR `observation-category` code.
    public enum Category: String, Sendable, Hashable, Codable, CaseIterable {
        case vitalSigns = "vital-signs"
        case activity
        case laboratory
        /// Non-interventional procedures such as electrodiagnostics (HRV, an ECG-class measurement).
        case procedure

        /// The R4 display text of the category code.
        public var display: String {
            switch self {
            case .vitalSigns: "Vital Signs"
            case .activity: "Activity"
            case .laboratory: "Laboratory"
            case .procedure: "Procedure"
            }
        }
    }

    /// An alternative unit: `catalogValue = (incomingValue + offset) × factor`, then rounded to the sent precision
    /// (``UnitConversion``).
    public struct UnitAlias: Sendable, Hashable, Codable {
        /// The unit string as sent in the event, e.g. `g` for body mass in grams.
        public var unit: String
        /// The multiplier into the catalog's UCUM unit, e.g. `0.001` for g → kg.
        public var factor: Double
        /// Added before the factor: `-32` for `[degF]` → Cel; 0 (and absent from catalog files) for every other.
        public var offset: Double

        public init(unit: String, factor: Double, offset: Double = 0) {
            self.unit = unit
            self.factor = factor
            self.offset = offset
        }

        private enum CodingKeys: String, CodingKey { case unit, factor, offset }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            unit = try c.decode(String.self, forKey: .unit)
            factor = try c.decode(Double.self, forKey: .factor)
            offset = try c.decodeIfPresent(Double.self, forKey: .offset) ?? 0
        }

        /// The conversion into the catalog unit.
        public var conversion: UnitConversion { UnitConversion(factor: factor, offset: offset) }
    }

    /// One named part of a panel metric (blood pressure: `systolic`, `diastolic`), sent as an object
    /// `{"value", "min"?, "max"?}` under its key and mapped to one `Observation.component`.
    public struct Component: Sendable, Hashable, Codable {
        /// The event member and component name: `systolic` or `diastolic` (the names the contract knows).
        public var key: String
        /// `component.code.coding`, the profile's code first (e.g. 8480-6).
        public var codings: [FHIRCoding]
        public var plausibleMin: Double
        public var plausibleMax: Double
        /// Codings of the day's minimum and maximum of this part; `nil` means observation-statistics codes.
        public var minimumCoding: FHIRCoding?
        public var maximumCoding: FHIRCoding?

        public init(
            key: String, codings: [FHIRCoding], plausibleMin: Double, plausibleMax: Double,
            minimumCoding: FHIRCoding? = nil, maximumCoding: FHIRCoding? = nil
        ) {
            self.key = key
            self.codings = codings
            self.plausibleMin = plausibleMin
            self.plausibleMax = plausibleMax
            self.minimumCoding = minimumCoding
            self.maximumCoding = maximumCoding
        }
    }

    /// The DailyValue `metric` key, e.g. `heart_rate`.
    public var key: String
    /// `code.coding`, primary first. LOINC first where verified; HealthKit first for weak or missing LOINC codes.
    public var codings: [FHIRCoding]
    /// `code.text`, e.g. "Heart rate, daily mean".
    public var text: String
    /// The UCUM code of `valueQuantity.code`, e.g. `/min`.
    public var ucum: String
    /// The human unit of `valueQuantity.unit`, e.g. `beats/minute`.
    public var unitDisplay: String
    public var aggregation: Aggregation
    /// The `observation-category`; `nil` writes none (R4 `category` is 0..*): for a home reading that none of the
    /// R4 categories describes without overclaiming (blood glucose is not a laboratory result, docs/CLINICAL.md).
    public var category: Category?
    /// The lowest plausible value (inclusive) for `value`, `min` and `max`.
    public var plausibleMin: Double
    /// The highest plausible value (inclusive) for `value`, `min` and `max`.
    public var plausibleMax: Double
    /// The lowest plausible day minimum (`min`) where physiology puts it below the lowest plausible mean (glucose:
    /// a critically low reading is real and important); `nil`: ``plausibleMin``.
    public var minPlausibleMin: Double?
    /// Whether events may carry `min` / `max` (discrete metrics only).
    public var allowsMinMax: Bool
    /// Component codings for the day's minimum and maximum; `nil` means observation-statistics `minimum`/`maximum`.
    public var minimumCoding: FHIRCoding?
    public var maximumCoding: FHIRCoding?
    /// Exact unit aliases converted by a factor (never an offset), e.g. SpO2 fraction `1` × 100 → `%`.
    public var unitAliases: [UnitAlias]
    /// Whether an event may omit `unit`: only where one unit is universal (counts, rates per minute). Everywhere
    /// else a missing unit is rejected (`MissingUnit`): a value is never stored in a guessed unit.
    public var unitOptional: Bool
    /// The parts of a panel metric (blood pressure); empty for a single-quantity metric. A panel event carries
    /// these members instead of `value`/`min`/`max`, and its Observation has components instead of a value.
    public var components: [Component]
    /// Whether a coding already says how the day was aggregated (41924-2 "24 hour mean", 96607-7 "mean"); when
    /// false, a `mean` metric's Observation states it as `method` = observation-statistics#average, a `maximum`
    /// metric's as observation-statistics#maximum.
    public var codesAggregation: Bool

    public init(
        key: String, codings: [FHIRCoding], text: String, ucum: String, unitDisplay: String,
        aggregation: Aggregation, category: Category?, plausibleMin: Double, plausibleMax: Double,
        minPlausibleMin: Double? = nil, allowsMinMax: Bool = false, minimumCoding: FHIRCoding? = nil,
        maximumCoding: FHIRCoding? = nil,
        unitAliases: [UnitAlias] = [], unitOptional: Bool = false, components: [Component] = [],
        codesAggregation: Bool = false
    ) {
        self.key = key
        self.codings = codings
        self.text = text
        self.ucum = ucum
        self.unitDisplay = unitDisplay
        self.aggregation = aggregation
        self.category = category
        self.plausibleMin = plausibleMin
        self.plausibleMax = plausibleMax
        self.minPlausibleMin = minPlausibleMin
        self.allowsMinMax = allowsMinMax
        self.minimumCoding = minimumCoding
        self.maximumCoding = maximumCoding
        self.unitAliases = unitAliases
        self.unitOptional = unitOptional
        self.components = components
        self.codesAggregation = codesAggregation
    }

    /// Whether events carry ``components`` instead of `value`.
    public var isPanel: Bool { !components.isEmpty }

    /// The observation-statistics code the Observation's `method` states for how the day was aggregated
    /// (`average` for a mean, `maximum` for a peak), or `nil` where the aggregation needs no method (sums, latest
    /// values) or a coding already says it (``codesAggregation``).
    public var methodStatistic: String? {
        guard !codesAggregation else { return nil }
        switch aggregation {
        case .mean: return "average"
        case .maximum: return "maximum"
        case .sum, .latest: return nil
        }
    }

    /// The component coding for the day's minimum.
    public var resolvedMinimumCoding: FHIRCoding { minimumCoding ?? .statistic("minimum") }

    /// The component coding for the day's maximum.
    public var resolvedMaximumCoding: FHIRCoding { maximumCoding ?? .statistic("maximum") }

    /// The plausible range of the day's minimum (`min`): down to ``minPlausibleMin`` where set.
    public var plausibleMinRange: ClosedRange<Double> { (minPlausibleMin ?? plausibleMin)...plausibleMax }

    /// The conversion of `unit` into the catalog unit, or `nil` when the unit is not accepted.
    public func conversion(forUnit unit: String) -> UnitConversion? {
        if unit == ucum { return .identity }
        return unitAliases.first { $0.unit == unit }?.conversion
    }
}
