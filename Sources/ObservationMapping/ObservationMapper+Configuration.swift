import DailyValueContract

extension ObservationMapper {
    /// Deployment settings of the FHIR mapping, checked once by ``ObservationMapper/init(configuration:catalog:)``.
    public struct Configuration: Sendable {
        /// `identifier.system`: a URI the deployment controls.
        public var identifierSystem: String
        /// The HMAC secret for resource ids (at least 16 bytes; keep it stable, rotating it changes every id).
        public var idKey: [UInt8]
        /// `meta.source`: this exporter's URI including its version.
        public var metaSource: String
        /// How long after the end of the local day an Observation stays `preliminary` (late syncs are common).
        public var finalGraceSeconds: Int64
        /// The URL of the HKSource provenance extension.
        public var sourceExtensionURL: String
        /// The product CodeSystem of the panel parts' statistics (`systolic-minimum`, `systolic-maximum`,
        /// `diastolic-minimum`, `diastolic-maximum`), written next to observation-statistics (docs/CLINICAL.md).
        public var statisticsCodeSystem: String
        /// How `subject` names the patient.
        public var subject: SubjectReference
        /// Whether the free-text device name (`source.name`, often a person's name) is stored. Off by default: it
        /// is PHI; turn it on only where the deployment has a documented reason (worker `--store-device-name`).
        public var storesDeviceName: Bool

        public init(
            identifierSystem: String = "https://fhir.example.org/identifiers/daily-summary", idKey: [UInt8],
            metaSource: String = "https://fhir.example.org/sources/daily-values-pipeline/1.0.0",
            finalGraceSeconds: Int64 = 6 * 3600,
            sourceExtensionURL: String = "https://fhir.example.org/StructureDefinition/hk-source",
            statisticsCodeSystem: String = "https://fhir.example.org/CodeSystem/daily-statistics",
            subject: SubjectReference = .literal, storesDeviceName: Bool = false
        ) {
            self.identifierSystem = identifierSystem
            self.idKey = idKey
            self.metaSource = metaSource
            self.finalGraceSeconds = finalGraceSeconds
            self.sourceExtensionURL = sourceExtensionURL
            self.statisticsCodeSystem = statisticsCodeSystem
            self.subject = subject
            self.storesDeviceName = storesDeviceName
        }

        /// Checks every setting.
        /// - Throws: ``ConfigurationError`` naming the setting and the rule.
        public func validate() throws(ConfigurationError) {
            for (field, uri) in [
                ("identifierSystem", identifierSystem), ("metaSource", metaSource),
                ("sourceExtensionURL", sourceExtensionURL), ("statisticsCodeSystem", statisticsCodeSystem),
            ] + subject.systems where !Self.isAbsoluteURI(uri) {
                throw ConfigurationError(field: field, "must be an absolute URI such as https://host/path")
            }
            guard finalGraceSeconds >= 0, finalGraceSeconds <= 30 * 86_400 else {
                throw ConfigurationError(field: "finalGraceSeconds", "must be between 0 and 30 days")
            }
            _ = try ObservationID(key: idKey)
        }

        private static func isAbsoluteURI(_ text: String) -> Bool {
            guard let colon = text.firstIndex(of: ":"), colon != text.startIndex, text.utf8.count <= 1024 else {
                return false
            }
            let scheme = text[..<colon]
            return scheme.first!.isLetter && scheme.allSatisfy { $0.isLetter || $0.isNumber || "+-.".contains($0) }
                && text[text.index(after: colon)...].count > 0
                && text.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F && $0 != "\"" && $0 != "\\" }
        }
    }

    /// How `Observation.subject` refers to the patient.
    public enum SubjectReference: Sendable, Hashable {
        /// `{"reference":"Patient/{id}"}` (the default): the server must hold `Patient/{id}` if it checks references.
        case literal
        /// `{"identifier":{"system":…,"value":"{id}"}}`: a logical reference for servers with referential
        /// integrity that do not hold the Patient under this id; `system` is the deployment's patient id URI.
        case logical(system: String)

        /// The URI settings to check, named as in the configuration.
        fileprivate var systems: [(String, String)] {
            switch self {
            case .literal: []
            case .logical(let system): [("patientIdentifierSystem", system)]
            }
        }
    }

    /// A mapper setting that cannot be used.
    public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
        public var field: String
        public var message: String

        public init(field: String, _ message: String) {
            self.field = field
            self.message = message
        }

        public var description: String { "observation mapper setting `\(field)`: \(message)" }
    }
}
