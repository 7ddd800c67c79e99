/// One entry of a catalog override file: every ``Metric`` field, each optional.
struct MetricPatch: Decodable {
    var key: String?
    var codings: [FHIRCoding]?
    var text: String?
    var ucum: String?
    var unitDisplay: String?
    var aggregation: Metric.Aggregation?
    var category: Metric.Category?
    var plausibleMin: Double?
    var plausibleMax: Double?
    var minPlausibleMin: Double?
    var allowsMinMax: Bool?
    var minimumCoding: FHIRCoding?
    var maximumCoding: FHIRCoding?
    var unitAliases: [Metric.UnitAlias]?
    var unitOptional: Bool?
    var components: [Metric.Component]?
    var codesAggregation: Bool?

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case key, codings, text, ucum, unitDisplay, aggregation, category, plausibleMin, plausibleMax, minPlausibleMin
        case allowsMinMax
        case minimumCoding, maximumCoding, unitAliases, unitOptional, components
        case codesAggregation
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let known = Set(CodingKeys.allCases.map(\.rawValue))
        let all = try decoder.container(keyedBy: AnyKey.self)
        if let unknown = all.allKeys.map(\.stringValue).sorted().first(where: { !known.contains($0) }) {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "unknown field `\(unknown)`"))
        }
        let c = try decoder.container(keyedBy: CodingKeys.self)
        key = try c.decodeIfPresent(String.self, forKey: .key)
        codings = try c.decodeIfPresent([FHIRCoding].self, forKey: .codings)
        text = try c.decodeIfPresent(String.self, forKey: .text)
        ucum = try c.decodeIfPresent(String.self, forKey: .ucum)
        unitDisplay = try c.decodeIfPresent(String.self, forKey: .unitDisplay)
        aggregation = try c.decodeIfPresent(Metric.Aggregation.self, forKey: .aggregation)
        category = try c.decodeIfPresent(Metric.Category.self, forKey: .category)
        plausibleMin = try c.decodeIfPresent(Double.self, forKey: .plausibleMin)
        plausibleMax = try c.decodeIfPresent(Double.self, forKey: .plausibleMax)
        minPlausibleMin = try c.decodeIfPresent(Double.self, forKey: .minPlausibleMin)
        allowsMinMax = try c.decodeIfPresent(Bool.self, forKey: .allowsMinMax)
        minimumCoding = try c.decodeIfPresent(FHIRCoding.self, forKey: .minimumCoding)
        maximumCoding = try c.decodeIfPresent(FHIRCoding.self, forKey: .maximumCoding)
        unitAliases = try c.decodeIfPresent([Metric.UnitAlias].self, forKey: .unitAliases)
        unitOptional = try c.decodeIfPresent(Bool.self, forKey: .unitOptional)
        components = try c.decodeIfPresent([Metric.Component].self, forKey: .components)
        codesAggregation = try c.decodeIfPresent(Bool.self, forKey: .codesAggregation)
    }

    /// `base` with the present fields replaced, or a new metric when `base` is `nil`.
    /// - Throws: ``MetricCatalogError`` when a new metric lacks a required field or `key` disagrees.
    func applied(to base: Metric?, key: String) throws(MetricCatalogError) -> Metric {
        if let own = self.key, own != key { throw MetricCatalogError("`key` '\(own)' differs from the entry's key") }
        func required<T>(_ value: T?, _ name: String) throws(MetricCatalogError) -> T {
            guard let value else { throw MetricCatalogError("a new metric needs the field `\(name)`") }
            return value
        }
        var metric: Metric
        if let base {
            metric = base
        } else {
            metric = Metric(
                key: key, codings: try required(codings, "codings"), text: try required(text, "text"),
                ucum: try required(ucum, "ucum"), unitDisplay: try required(unitDisplay, "unitDisplay"),
                aggregation: try required(aggregation, "aggregation"), category: category,
                plausibleMin: try required(plausibleMin, "plausibleMin"),
                plausibleMax: try required(plausibleMax, "plausibleMax"))
        }
        if let codings { metric.codings = codings }
        if let text { metric.text = text }
        if let ucum { metric.ucum = ucum }
        if let unitDisplay { metric.unitDisplay = unitDisplay }
        if let aggregation { metric.aggregation = aggregation }
        if let category { metric.category = category }
        if let plausibleMin { metric.plausibleMin = plausibleMin }
        if let plausibleMax { metric.plausibleMax = plausibleMax }
        if let minPlausibleMin { metric.minPlausibleMin = minPlausibleMin }
        if let allowsMinMax { metric.allowsMinMax = allowsMinMax }
        if let minimumCoding { metric.minimumCoding = minimumCoding }
        if let maximumCoding { metric.maximumCoding = maximumCoding }
        if let unitAliases { metric.unitAliases = unitAliases }
        if let unitOptional { metric.unitOptional = unitOptional }
        if let components { metric.components = components }
        if let codesAggregation { metric.codesAggregation = codesAggregation }
        return metric
    }
}
