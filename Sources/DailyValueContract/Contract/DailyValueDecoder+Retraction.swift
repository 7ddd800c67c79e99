import JSON

// `kind` and the retraction event (docs/LIFECYCLE.md).

extension DailyValueDecoder {
    /// What an event is, from its optional `kind`.
    enum Kind { case value, retraction }

    /// `kind`: absent, null or `value` → a value; `retraction` → a retraction; anything else is rejected.
    func checkKind(_ raw: DailyValueField.RawMembers, _ scanner: JSONScanner) throws(DailyValueError) -> Kind {
        switch raw[DailyValueField.kind.rawValue] {
        case nil, .null?: return .value
        case .string(let token)?:
            switch scanner.string(token) {
            case "value": return .value
            case "retraction": return .retraction
            default: throw DailyValueError(.invalidKind, field: "kind", "must be value or retraction")
            }
        default: throw DailyValueError(.invalidFieldType, field: "kind", "must be a string")
        }
    }

    /// A retraction's members: patient, metric and day as for a value, an explicit version, and a reason.
    func checkRetraction(_ raw: DailyValueField.RawMembers, _ scanner: JSONScanner) throws(DailyValueError)
        -> DailyValueRetraction
    {
        let patient = try checkPatient(try string(raw, .patient, scanner), scanner)
        let metric = try checkMetric(try string(raw, .metric, scanner), scanner).metric
        let day = try checkDay(try string(raw, .day, scanner), scanner)
        guard case .number? = raw[DailyValueField.version.rawValue] else {
            throw missingOrType(raw, .version, "must be a number")
        }
        let version = try checkVersion(raw, recordTimestampMs: nil)
        let reason = scanner.string(try string(raw, .reason, scanner))
        guard reason.utf8.count <= policy.maxSourceFieldBytes, reason.utf8.contains(where: { $0 != 0x20 }),
            !Self.hasControlCharacter(reason)
        else {
            throw DailyValueError(
                .invalidReason, field: "reason",
                "must be 1 to \(policy.maxSourceFieldBytes) UTF-8 bytes, not blank, without control characters")
        }
        return DailyValueRetraction(
            patient: patient, metric: metric.key, day: day.text, version: version, reason: reason)
    }
}
