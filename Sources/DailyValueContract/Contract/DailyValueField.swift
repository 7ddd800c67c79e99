/// The fields of a DailyValue v1 event and of its `source` object, matched on raw bytes.
enum DailyValueField: Int, CaseIterable {
    case schema, patient, metric, day, timeZone, utcOffset, value, min, max, unit, version, source, systolic, diastolic, status, kind,
        reason

    /// The captured top-level members, indexed by `rawValue`.
    typealias RawMembers = InlineArray<17, RawJSONValue?>

    /// The JSON member name.
    var name: String {
        switch self {
        case .schema: "schema"
        case .patient: "patient"
        case .metric: "metric"
        case .day: "day"
        case .timeZone: "timeZone"
        case .utcOffset: "utcOffset"
        case .value: "value"
        case .min: "min"
        case .max: "max"
        case .unit: "unit"
        case .version: "version"
        case .source: "source"
        case .systolic: "systolic"
        case .diastolic: "diastolic"
        case .status: "status"
        case .kind: "kind"
        case .reason: "reason"
        }
    }

    /// The members only a panel metric takes (one object per component); any other metric rejects them.
    static let panelMembers: [DailyValueField] = [.systolic, .diastolic]

    /// Every field with its name as bytes, for matching without creating strings.
    static let table: [(bytes: [UInt8], field: DailyValueField)] = allCases.map { (Array($0.name.utf8), $0) }

    /// The field whose name equals `key`, or `nil` for an unknown (ignored) member.
    static func match(_ key: UnsafeRawBufferPointer) -> DailyValueField? {
        for entry in table where entry.bytes.count == key.count {
            if entry.bytes.withUnsafeBytes({ $0.elementsEqual(key) }) { return entry.field }
        }
        return nil
    }
}

/// The members of the `source` object.
enum SourceField: Int, CaseIterable {
    case name, bundleId, model, softwareVersion

    var name: String {
        switch self {
        case .name: "name"
        case .bundleId: "bundleId"
        case .model: "model"
        case .softwareVersion: "softwareVersion"
        }
    }

    /// The field's path in errors and metrics, e.g. `source.model` (built on demand: only errors and omitted
    /// fields need it).
    var path: String { "source." + name }

    static let table: [(bytes: [UInt8], field: SourceField)] = allCases.map { (Array($0.name.utf8), $0) }

    static func match(_ key: UnsafeRawBufferPointer) -> SourceField? {
        for entry in table where entry.bytes.count == key.count {
            if entry.bytes.withUnsafeBytes({ $0.elementsEqual(key) }) { return entry.field }
        }
        return nil
    }
}
