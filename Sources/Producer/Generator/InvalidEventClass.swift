/// The kinds of broken event the generator can emit, one per contract rule a worker must dead-letter.
///
/// The raw value is what the oracle file records for each invalid line.
public enum InvalidEventClass: String, Sendable, Hashable, CaseIterable {
    /// Not parseable JSON (a truncated line).
    case brokenJSON = "broken_json"
    /// `schema` is not 1.
    case unknownSchema = "unknown_schema"
    /// `metric` is not a catalog key.
    case unknownMetric = "unknown_metric"
    /// `value` far outside the metric's plausible range.
    case outOfRange = "out_of_range"
    /// `unit` is neither the catalog's UCUM code nor an alias.
    case badUnit = "bad_unit"
    /// `day` is not a real `YYYY-MM-DD` date.
    case badDay = "bad_day"
    /// `timeZone` is not an IANA name, or `utcOffset` is out of range.
    case badZone = "bad_zone"
    /// The message is larger than 64 KiB.
    case oversize
    /// A required field is absent.
    case missingField = "missing_field"
}
