import JSON

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

// Pass 2 of decoding: the per-field rules of the event contract. Rule texts never include the offending value.

extension DailyValueDecoder {
    // MARK: - Identity fields

    /// `patient` must be a FHIR `id` (`[A-Za-z0-9\-\.]{1,64}`, so `Patient/{id}` is a valid literal reference in
    /// every subject mode) with at least one letter or digit (`.`, `..` and `---` are path segments or noise, not ids).
    func checkPatient(_ token: JSONScanner.StringToken, _ scanner: JSONScanner) throws(DailyValueError) -> String {
        let (allowed, hasAlphanumeric) = Self.withKeyBytes(token, scanner) { bytes in
            (
                (1...64).contains(bytes.count) && bytes.allSatisfy(Self.isPatientByte),
                bytes.contains(where: Self.isAlphanumeric)
            )
        }
        guard allowed else {
            throw DailyValueError(
                .invalidPatient, field: "patient",
                "must be a FHIR id: 1-64 characters of [A-Za-z0-9.-] (no underscore)")
        }
        guard hasAlphanumeric else {
            throw DailyValueError(.invalidPatient, field: "patient", "must contain at least one letter or digit")
        }
        return scanner.string(token)
    }

    /// Whether `id` is a patient id the contract accepts (what ``checkPatient(_:_:)`` checks), for tools that take
    /// one on the command line (`storectl erase`).
    public static func isValidPatientID(_ id: String) -> Bool {
        let bytes = Array(id.utf8)
        return (1...64).contains(bytes.count) && bytes.allSatisfy(isPatientByte) && bytes.contains(where: isAlphanumeric)
    }

    private static func isPatientByte(_ b: UInt8) -> Bool { isAlphanumeric(b) || b == 0x2E || b == 0x2D }

    private static func isAlphanumeric(_ b: UInt8) -> Bool {
        (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || (b >= 0x30 && b <= 0x39)
    }

    func checkMetric(_ token: JSONScanner.StringToken, _ scanner: JSONScanner) throws(DailyValueError)
        -> MetricCatalog.Entry
    {
        guard let entry = Self.withKeyBytes(token, scanner, { catalog.entry(forKey: $0) }) else {
            throw DailyValueError(.unknownMetric, field: "metric", "must be a key of the metric catalog")
        }
        return entry
    }

    func checkDay(_ token: JSONScanner.StringToken, _ scanner: JSONScanner) throws(DailyValueError)
        -> (text: String, date: CivilDate)
    {
        guard let date = Self.withKeyBytes(token, scanner, { CivilDate(iso: $0) }) else {
            throw DailyValueError(.invalidDay, field: "day", "must be a real calendar date YYYY-MM-DD")
        }
        let nowSeconds = policy.now().timeIntervalSince1970
        let today = Int((nowSeconds / 86_400).rounded(.down))
        let day = date.daysSinceEpoch
        guard day <= today + policy.maxDaysInFuture else {
            throw DailyValueError(
                .dayOutOfWindow, field: "day", "must not be more than \(policy.maxDaysInFuture) day(s) in the future")
        }
        guard day >= today - policy.maxDaysInPast else {
            throw DailyValueError(
                .dayOutOfWindow, field: "day", "must not be more than \(policy.maxDaysInPast) days in the past")
        }
        return (scanner.string(token), date)
    }

    // MARK: - Zone

    func checkZone(_ raw: DailyValueField.RawMembers, _ scanner: JSONScanner) throws(DailyValueError)
        -> (text: DailyValue.Zone, resolved: ValidatedDailyValue.Zone)
    {
        let name = raw[DailyValueField.timeZone.rawValue]
        let offset = raw[DailyValueField.utcOffset.rawValue]
        switch (name, offset) {
        case (nil, nil), (.null?, .null?), (nil, .null?), (.null?, nil):
            throw DailyValueError(.missingField, field: "timeZone", "one of `timeZone` or `utcOffset` is required")
        case (.string(let token)?, nil), (.string(let token)?, .null?):
            let name = scanner.string(token)
            guard let zone = zones.zone(named: name) else {
                throw DailyValueError(
                    .invalidTimeZone, field: "timeZone",
                    "must be UTC or an IANA location zone (Area/Location); send utcOffset for a fixed offset")
            }
            return (.timeZone(name), .named(zone))
        case (nil, .string(let token)?), (.null?, .string(let token)?):
            guard let seconds = Self.withKeyBytes(token, scanner, Self.parseOffset) else {
                throw DailyValueError(.invalidUTCOffset, field: "utcOffset", "must be ±HH:MM within ±14:00")
            }
            return (.utcOffset(seconds: seconds), .fixed(offsetSeconds: seconds))
        case (nil, _), (.null?, _):
            throw DailyValueError(.invalidFieldType, field: "utcOffset", "must be a string")
        case (_, nil), (_, .null?):
            throw DailyValueError(.invalidFieldType, field: "timeZone", "must be a string")
        default:
            throw DailyValueError(.conflictingFields, field: "utcOffset", "send either `timeZone` or `utcOffset`")
        }
    }

    /// `±HH:MM` → seconds east of UTC, within ±14:00; `nil` otherwise.
    static func parseOffset(_ b: UnsafeRawBufferPointer) -> Int? {
        guard b.count == 6, b[0] == 0x2B || b[0] == 0x2D, b[3] == 0x3A else { return nil }
        func digit(_ i: Int) -> Int? { b[i] >= 0x30 && b[i] <= 0x39 ? Int(b[i] - 0x30) : nil }
        guard let h1 = digit(1), let h2 = digit(2), let m1 = digit(4), let m2 = digit(5) else { return nil }
        let hours = h1 * 10 + h2
        let minutes = m1 * 10 + m2
        guard minutes < 60, hours * 60 + minutes <= 14 * 60 else { return nil }
        return (b[0] == 0x2D ? -1 : 1) * (hours * 3600 + minutes * 60)
    }

    // MARK: - Values

    /// The conversion from the event's `unit` into the catalog unit; the identity when `unit` is absent and the
    /// metric's unit is universal (``Metric/unitOptional``).
    /// - Throws: `MissingUnit` when `unit` is absent for any other metric: the value is never taken to be in the
    ///   catalog unit by guess (glucose 15.2 without a unit may be mmol/L).
    func unitConversion(_ raw: DailyValueField.RawMembers, _ entry: MetricCatalog.Entry, _ scanner: JSONScanner)
        throws(DailyValueError) -> UnitConversion
    {
        switch raw[DailyValueField.unit.rawValue] {
        case nil, .null?:
            guard entry.metric.unitOptional else {
                throw DailyValueError(
                    .missingUnit, field: "unit", "is required for this metric (its value is ambiguous without it)")
            }
            return .identity
        case .string(let token)?:
            let conversion = Self.withKeyBytes(token, scanner) { bytes in
                entry.units.first { unit in unit.bytes.withUnsafeBytes { $0.elementsEqual(bytes) } }?.conversion
            }
            guard let conversion else {
                throw DailyValueError(
                    .invalidUnit, field: "unit", "must be the metric's UCUM code or one of its exact aliases")
            }
            return conversion
        default: throw DailyValueError(.invalidFieldType, field: "unit", "must be a string")
        }
    }

    func checkRanges(value: Double, min: Double?, max: Double?, _ metric: Metric) throws(DailyValueError) {
        if min != nil || max != nil, !metric.allowsMinMax {
            throw DailyValueError(
                .minMaxNotAllowed, field: min != nil ? "min" : "max", "the metric does not take min/max")
        }
        try Self.checkRanges(
            value: value, min: min, max: max, plausible: metric.plausibleMin...metric.plausibleMax,
            plausibleMin: metric.plausibleMinRange, prefix: "")
    }

    /// `value` and `max` inside `plausible`, `min` inside `plausibleMin` (default `plausible`: only a metric with
    /// ``Metric/minPlausibleMin`` differs), and `min <= value <= max`; field names get `prefix`.
    static func checkRanges(
        value: Double, min: Double?, max: Double?, plausible range: ClosedRange<Double>,
        plausibleMin minRange: ClosedRange<Double>? = nil, prefix: String
    ) throws(DailyValueError) {
        func check(_ number: Double?, _ name: String, _ range: ClosedRange<Double>) throws(DailyValueError) {
            guard let number, !range.contains(number) else { return }
            throw DailyValueError(.valueOutOfRange, field: prefix + name, "outside the metric's plausible range")
        }
        try check(value, "value", range)
        try check(min, "min", minRange ?? range)
        try check(max, "max", range)
        if let min, min > value {
            throw DailyValueError(.minMaxInconsistent, field: prefix + "min", "must not exceed `value`")
        }
        if let max, max < value {
            throw DailyValueError(.minMaxInconsistent, field: prefix + "max", "must not be below `value`")
        }
    }

    func checkVersion(_ raw: DailyValueField.RawMembers, recordTimestampMs: Int64?) throws(DailyValueError)
        -> Int64
    {
        switch raw[DailyValueField.version.rawValue] {
        case .number(let token)?:
            guard let version = token.int64, version >= 0 else {
                throw DailyValueError(
                    .invalidVersion, field: "version", "must be a non-negative integer that fits 64 bits")
            }
            return version
        case nil, .null?:
            guard let recordTimestampMs, recordTimestampMs >= 0 else {
                throw DailyValueError(
                    .invalidVersion, field: "version", "absent, and the record has no usable timestamp")
            }
            return recordTimestampMs
        default: throw DailyValueError(.invalidFieldType, field: "version", "must be a number")
        }
    }

    /// The optional `status`: `preliminary`, `final`, or absent/null (`nil`).
    func checkStatus(_ raw: DailyValueField.RawMembers, _ scanner: JSONScanner) throws(DailyValueError)
        -> DailyValue.Status?
    {
        switch raw[DailyValueField.status.rawValue] {
        case nil, .null?: return nil
        case .string(let token)?:
            if let status = DailyValue.Status(rawValue: scanner.string(token)) { return status }
            throw DailyValueError(.invalidStatus, field: "status", "must be preliminary or final")
        default: throw DailyValueError(.invalidFieldType, field: "status", "must be a string")
        }
    }
}
