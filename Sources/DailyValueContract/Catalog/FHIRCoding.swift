/// One FHIR `Coding`: a code from a code system, with its display text.
public struct FHIRCoding: Sendable, Hashable, Codable {
    /// LOINC.
    public static let loincSystem = "http://loinc.org"
    /// Apple HealthKit identifiers: type identifiers (as used by HealthKitOnFHIR) and, where a daily value is one
    /// category value of a type (a sleep stage), Apple's constant for it (`HKCategoryValueSleepAnalysisAwake`).
    public static let healthKitSystem = "http://developer.apple.com/documentation/healthkit"
    /// R4 observation statistics codes (`minimum`, `maximum`, `average`).
    public static let statisticsSystem = "http://terminology.hl7.org/CodeSystem/observation-statistics"
    /// R4 observation categories.
    public static let categorySystem = "http://terminology.hl7.org/CodeSystem/observation-category"
    /// UCUM.
    public static let ucumSystem = "http://unitsofmeasure.org"

    public var system: String
    public var code: String
    public var display: String

    public init(system: String, code: String, display: String) {
        self.system = system
        self.code = code
        self.display = display
    }

    /// A LOINC coding.
    public static func loinc(_ code: String, _ display: String) -> FHIRCoding {
        FHIRCoding(system: loincSystem, code: code, display: display)
    }

    /// An observation-statistics coding: `minimum`, `maximum` or `average`.
    public static func statistic(_ code: String) -> FHIRCoding {
        FHIRCoding(system: statisticsSystem, code: code, display: code.prefix(1).uppercased() + code.dropFirst())
    }

    /// A HealthKit coding, e.g. `healthKit("HKQuantityTypeIdentifierHeartRate", "Heart Rate")`.
    public static func healthKit(_ code: String, _ display: String) -> FHIRCoding {
        FHIRCoding(system: healthKitSystem, code: code, display: display)
    }
}
