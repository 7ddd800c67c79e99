/// Why a DailyValue event was rejected: the class of failure, the field and the rule.
///
/// ``kind``'s raw value is a stable short class name for dead-letter headers and metrics labels (e.g.
/// `ValueOutOfRange`). ``description`` is safe for logs: it never contains a health value or a patient id, only
/// the field name, the rule and, for malformed JSON, a byte offset.
public struct DailyValueError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The class of failure. Raw values are part of the dead-letter contract: never rename them.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The message exceeds the size limit (64 KiB by default).
        case payloadTooLarge = "PayloadTooLarge"
        /// Not one well-formed UTF-8 JSON object (syntax, encoding, NaN/Infinity, trailing data, nesting depth).
        case invalidJSON = "InvalidJSON"
        /// A field appears twice in one object.
        case duplicateField = "DuplicateField"
        /// A required field is absent.
        case missingField = "MissingField"
        /// A field has the wrong JSON type (e.g. a string where a number is required).
        case invalidFieldType = "InvalidFieldType"
        /// `schema` is not a version this decoder knows (only 1).
        case schemaVersionUnsupported = "SchemaVersionUnsupported"
        /// `patient` is not a FHIR id (1–64 characters of `[A-Za-z0-9.-]`) with at least one letter or digit.
        case invalidPatient = "InvalidPatient"
        /// `metric` is not a catalog key.
        case unknownMetric = "UnknownMetric"
        /// `day` is not a real `YYYY-MM-DD` calendar date.
        case invalidDay = "InvalidDay"
        /// `day` is outside the accepted window around now.
        case dayOutOfWindow = "DayOutOfWindow"
        /// `timeZone` is neither `UTC` nor a location zone (`Area/Location`) of the system tz database.
        case invalidTimeZone = "InvalidTimeZone"
        /// `utcOffset` is not `±HH:MM` within ±14:00.
        case invalidUTCOffset = "InvalidUTCOffset"
        /// Both `timeZone` and `utcOffset` are present.
        case conflictingFields = "ConflictingFields"
        /// A number is not finite (overflow).
        case invalidNumber = "InvalidNumber"
        /// `value`, `min` or `max` is outside the metric's plausible range.
        case valueOutOfRange = "ValueOutOfRange"
        /// `min`/`max` sent for a metric that does not allow them.
        case minMaxNotAllowed = "MinMaxNotAllowed"
        /// `min <= value <= max` does not hold.
        case minMaxInconsistent = "MinMaxInconsistent"
        /// `unit` is neither the metric's UCUM code nor one of its exact aliases.
        case invalidUnit = "InvalidUnit"
        /// `unit` is absent for a metric whose unit is not universal (everything but counts and rates per minute).
        case missingUnit = "MissingUnit"
        /// A panel's parts disagree (blood pressure: systolic must be greater than diastolic).
        case panelInconsistent = "PanelInconsistent"
        /// `version` is not a non-negative integer that fits Int64, or no version can be determined.
        case invalidVersion = "InvalidVersion"
        /// A `source` field is empty, too long or contains control characters.
        case invalidSource = "InvalidSource"
        /// `status` is present but neither `preliminary` nor `final`.
        case invalidStatus = "InvalidStatus"
        /// `kind` is neither `value` nor `retraction`, or a retraction where only a value is taken.
        case invalidKind = "InvalidKind"
        /// A retraction's `reason` is blank, too long or contains control characters.
        case invalidReason = "InvalidReason"
    }

    public var kind: Kind
    /// The JSON field at fault, e.g. `source.name`; empty when the message as a whole is at fault.
    public var field: String
    /// The rule that failed, in words; never contains the offending value.
    public var rule: String

    public init(_ kind: Kind, field: String, _ rule: String) {
        self.kind = kind
        self.field = field
        self.rule = rule
    }

    /// The stable short class name, e.g. `InvalidUnit` (the dead-letter `reason` header).
    public var className: String { kind.rawValue }

    public var description: String {
        field.isEmpty ? "\(className): \(rule)" : "\(className) `\(field)`: \(rule)"
    }
}
