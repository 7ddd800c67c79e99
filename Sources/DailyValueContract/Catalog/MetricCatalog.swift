/// The set of metrics a deployment accepts, keyed by DailyValue `metric` key.
///
/// Start from ``builtin`` and optionally merge a deployment's JSON file with ``load(overridesFrom:)``.
/// Lookups from the decoder work on raw bytes, so the hot path creates no strings for metric keys or units.
public struct MetricCatalog: Sendable {
    /// One accepted unit string of a metric as bytes, with its conversion into the catalog unit.
    struct UnitEntry: Sendable {
        let bytes: [UInt8]
        let conversion: UnitConversion
    }

    /// A metric with its key and unit strings pre-encoded for byte comparison. A class: the decoder finds one per
    /// event, and passing a reference is one retain where copying the metric's fields was about twenty.
    final class Entry: Sendable {
        let keyBytes: [UInt8]
        let metric: Metric
        let units: [UnitEntry]

        init(keyBytes: [UInt8], metric: Metric, units: [UnitEntry]) {
            self.keyBytes = keyBytes
            self.metric = metric
            self.units = units
        }
    }

    /// The metrics by key.
    public let metrics: [String: Metric]
    let entries: [Entry]

    /// Builds a catalog after checking every entry (see ``Metric`` for the rules).
    /// - Throws: ``MetricCatalogError`` naming the first invalid key and rule.
    public init(metrics: [Metric]) throws(MetricCatalogError) {
        var seen = Set<String>()
        for metric in metrics {
            try Self.check(metric)
            guard seen.insert(metric.key).inserted else {
                throw MetricCatalogError(key: metric.key, "the key appears more than once")
            }
        }
        self.init(unchecked: metrics)
    }

    /// Builds a catalog from entries already known to be valid (the built-in table; checked by the tests).
    init(unchecked metrics: [Metric]) {
        var byKey: [String: Metric] = [:]
        for metric in metrics { byKey[metric.key] = metric }
        self.metrics = byKey
        self.entries = byKey.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { key in
            let metric = byKey[key]!
            let units =
                [UnitEntry(bytes: Array(metric.ucum.utf8), conversion: .identity)]
                + metric.unitAliases.map { UnitEntry(bytes: Array($0.unit.utf8), conversion: $0.conversion) }
            return Entry(keyBytes: Array(key.utf8), metric: metric, units: units)
        }
    }

    // MARK: - Lookup

    /// Every metric, ordered by key (byte order).
    public var allMetrics: [Metric] { entries.map(\.metric) }

    /// The metric for `key`, if the catalog has it.
    public subscript(key: String) -> Metric? { metrics[key] }

    /// The entry whose key equals `bytes`: a binary search over ``entries`` (sorted by key, and keys are ASCII, so
    /// String order is byte order), about six byte comparisons for the built-in 58 keys instead of up to 58.
    func entry(forKey bytes: UnsafeRawBufferPointer) -> Entry? {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            let order = entries[middle].keyBytes.withUnsafeBytes { Self.compare($0, bytes) }
            if order == 0 { return entries[middle] }
            if order < 0 { low = middle + 1 } else { high = middle }
        }
        return nil
    }

    /// Byte-wise order of `a` and `b`: negative, 0 or positive.
    private static func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        for i in 0..<Swift.min(a.count, b.count) where a[i] != b[i] { return Int(a[i]) - Int(b[i]) }
        return a.count - b.count
    }

    // MARK: - Checks

    /// Checks one entry: key charset, codings, units, range and alias factors.
    static func check(_ metric: Metric) throws(MetricCatalogError) {
        let key = metric.key
        func fail(_ rule: String) -> MetricCatalogError { MetricCatalogError(key: key, rule) }
        guard (1...64).contains(key.utf8.count),
            key.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F })
        else { throw fail("the key must be 1-64 characters of [a-z0-9_]") }
        guard !metric.codings.isEmpty else { throw fail("at least one coding is required") }
        for coding in metric.codings where coding.system.isEmpty || coding.code.isEmpty {
            throw fail("every coding needs a system and a code")
        }
        guard !metric.text.isEmpty else { throw fail("`text` must not be empty") }
        guard isPlausibleUnit(metric.ucum) else { throw fail("`ucum` must be a non-empty UCUM code without spaces") }
        guard !metric.unitDisplay.isEmpty else { throw fail("`unitDisplay` must not be empty") }
        guard metric.plausibleMin.isFinite, metric.plausibleMax.isFinite, metric.plausibleMin <= metric.plausibleMax
        else { throw fail("`plausibleMin` <= `plausibleMax`, both finite") }
        if let low = metric.minPlausibleMin {
            guard low.isFinite, low <= metric.plausibleMin, metric.allowsMinMax, !metric.isPanel else {
                throw fail("`minPlausibleMin` must be finite, <= `plausibleMin`, on a single metric with min/max")
            }
        }
        if !metric.allowsMinMax, metric.minimumCoding != nil || metric.maximumCoding != nil {
            throw fail("min/max component codings need `allowsMinMax`")
        }
        for alias in metric.unitAliases {
            guard isPlausibleUnit(alias.unit), alias.unit != metric.ucum else {
                throw fail("alias unit '\(alias.unit)' must be a UCUM-like code other than `ucum`")
            }
            guard alias.factor.isFinite, alias.factor > 0, alias.offset.isFinite else {
                throw fail("alias factor for '\(alias.unit)' must be finite and > 0, its offset finite")
            }
        }
        guard Set(metric.unitAliases.map(\.unit)).count == metric.unitAliases.count else {
            throw fail("alias units must be distinct")
        }
        try checkComponents(metric)
    }

    /// The member names a panel component may have: the event contract knows these and no others.
    public static let componentKeys = ["systolic", "diastolic"]

    private static func checkComponents(_ metric: Metric) throws(MetricCatalogError) {
        func fail(_ rule: String) -> MetricCatalogError { MetricCatalogError(key: metric.key, rule) }
        guard metric.isPanel else { return }
        guard metric.components.map(\.key) == componentKeys else {
            throw fail("a panel's `components` must be exactly \(componentKeys) in this order")
        }
        guard metric.allowsMinMax, metric.minimumCoding == nil, metric.maximumCoding == nil, !metric.unitOptional
        else { throw fail("a panel takes min/max per component, has no own min/max codings and requires `unit`") }
        for component in metric.components {
            guard !component.codings.isEmpty,
                component.codings.allSatisfy({ !$0.system.isEmpty && !$0.code.isEmpty }),
                component.plausibleMin.isFinite, component.plausibleMax.isFinite,
                component.plausibleMin <= component.plausibleMax
            else { throw fail("component `\(component.key)` needs codings and a finite plausible range") }
        }
    }

    private static func isPlausibleUnit(_ unit: String) -> Bool {
        (1...32).contains(unit.utf8.count) && unit.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != 0x22 }
    }
}
