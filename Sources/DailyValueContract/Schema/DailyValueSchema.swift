/// The published JSON Schema (draft 2020-12) of the DailyValue v1 events, generated from a metric catalog: a
/// DailyValue (`#/$defs/value`) or a retraction of its day (`"kind":"retraction"`, `#/$defs/retraction`).
///
/// One source of truth: `schema/daily-value-v1.schema.json` is `producer schema`'s output for the built-in catalog,
/// and a test keeps the two equal, so a catalog change cannot leave the published schema behind. The schema states
/// every rule of ``DailyValueDecoder`` (`validateEvent`, both kinds) that JSON Schema can express; the others (a day
/// within the window, a zone that exists, `min <= value <= max`, the 64 KiB limit, …) are listed in `docs/SCHEMA.md`
/// and stay with the decoder.
///
/// ```swift
/// let text = DailyValueSchema(catalog: .builtin).document().pretty()
/// ```
public struct DailyValueSchema: Sendable {
    /// The schema's `$id`.
    public static let id = "urn:daily-values-pipeline:daily-value:v1"
    /// The JSON Schema dialect.
    public static let dialect = "https://json-schema.org/draft/2020-12/schema"

    public let catalog: MetricCatalog
    /// The source-string length limit comes from here (`maxSourceFieldBytes`).
    public let policy: ValidationPolicy
    /// Whether events of a metric may omit `unit`; see ``unitMayBeOmitted(_:)``.
    public let unitMayBeOmitted: @Sendable (Metric) -> Bool

    /// - Parameter unitMayBeOmitted: the per-metric unit rule; the default is the decoder's current rule.
    public init(
        catalog: MetricCatalog, policy: ValidationPolicy = .init(),
        unitMayBeOmitted: @escaping @Sendable (Metric) -> Bool = DailyValueSchema.unitMayBeOmitted
    ) {
        self.catalog = catalog
        self.policy = policy
        self.unitMayBeOmitted = unitMayBeOmitted
    }

    /// The schema as pretty-printed JSON (what `producer schema` prints and the repository publishes).
    public func json() -> String { document().pretty() }

    // MARK: - Document

    /// The whole schema document.
    package func document() -> SchemaNode {
        let metrics = catalog.allMetrics
        return [
            "$schema": .string(Self.dialect),
            "$id": .string(Self.id),
            "title": "DailyValue v1",
            "description": """
            One event per Kafka message (UTF-8 JSON, at most 64 KiB, key = patient): one metric's value for one \
            person's local calendar day (#/$defs/value), or a retraction of that day (kind retraction, \
            #/$defs/retraction, docs/LIFECYCLE.md). Generated from the metric catalog by `producer schema`; do not \
            edit. Rules this schema cannot express are checked by the decoder only: see docs/SCHEMA.md.
            """,
            "type": "object",
            "required": ["schema", "patient", "metric", "day"],
            "properties": sharedProperties(metrics),
            "if": ["required": ["kind"], "properties": ["kind": ["const": "retraction"]]],
            "then": ["$ref": "#/$defs/retraction"],
            "else": ["$ref": "#/$defs/value"],
            "$defs": .object(
                [("value", valueRules(metrics)), ("retraction", retractionRules), ("sourceText", sourceText)]
                    + metrics.map { ("metric." + $0.key, metricRules($0)) }),
        ]
    }

    /// The members both kinds of event share, and `kind`.
    private func sharedProperties(_ metrics: [Metric]) -> SchemaNode {
        [
            "schema": ["description": "The contract version; only 1 exists.", "const": 1],
            "patient": [
                "description": "The patient id (also the Kafka key): a FHIR id with at least one letter or digit.",
                "type": "string", "minLength": 1, "maxLength": 64, "pattern": "[A-Za-z0-9]",
                "not": Self.string(matching: "[^A-Za-z0-9.-]"),
            ],
            "metric": ["description": "A metric catalog key.", "enum": .array(metrics.map { .string($0.key) })],
            "day": [
                "description": "The person's local calendar day, a real Gregorian date YYYY-MM-DD (0001-9999).",
                "type": "string", "format": "date", "minLength": 10, "maxLength": 10,
                "pattern": .string(Self.calendarDatePattern),
            ],
            "kind": [
                "description": "Absent, null or value: a DailyValue; retraction: a retraction of the day.",
                "enum": ["value", "retraction", .null],
            ],
        ]
    }

    /// A DailyValue: the zone, the value (per metric, `#/$defs/metric.<key>`), version, status and provenance.
    private func valueRules(_ metrics: [Metric]) -> SchemaNode {
        [
            "description": "A DailyValue: kind absent, null or value.",
            "properties": valueProperties,
            "oneOf": [Self.present("timeZone"), Self.present("utcOffset")],
            "allOf": .array(metrics.map(metricBranch)),
        ]
    }

    private var valueProperties: SchemaNode {
        [
            "timeZone": [
                "description": "UTC or an IANA location zone name (preferred: DST days are 23 or 25 hours).",
                "type": ["string", "null"], "minLength": 1, "maxLength": 64,
                "pattern": .string("^(?:UTC$|(?:\(TimeZoneCache.locationAreas.joined(separator: "|")))/)"),
                "not": Self.string(matching: "[^A-Za-z0-9/_+-]|//"),
            ],
            "utcOffset": [
                "description": "A fixed UTC offset ±HH:MM within ±14:00, when no zone name is known.",
                "type": ["string", "null"], "minLength": 6, "maxLength": 6,
                "pattern": "^[+-](?:(?:0[0-9]|1[0-3]):[0-5][0-9]|14:00)",
            ],
            "value": ["description": "The day's value (sum, mean or latest, per the catalog).", "type": Self.number],
            "min": ["description": "The day's minimum (metrics that take min/max).", "type": Self.number],
            "max": ["description": "The day's maximum (metrics that take min/max).", "type": Self.number],
            "unit": ["description": "The catalog's UCUM code for the metric or an exact alias.", "type": Self.text],
            "version": [
                "description": "Grows each time the phone recomputes the day; absent: the Kafka record timestamp.",
                "type": ["integer", "null"], "minimum": 0, "maximum": .integer(Int64.max),
            ],
            "status": [
                "description": """
                preliminary: the local day is still open on the phone; final: the day is complete. Absent: final \
                once the record timestamp is past the local day's end plus the worker's grace (docs/LIFECYCLE.md).
                """,
                "type": Self.text, "enum": ["preliminary", "final", .null],
            ],
            "source": [
                "description": "HKSource provenance; unknown members are ignored.",
                "type": ["object", "null"],
                "properties": .object(
                    ["name", "bundleId", "model", "softwareVersion"].map { ($0, ["$ref": "#/$defs/sourceText"]) }),
            ],
        ]
    }

    /// A `source` string: not blank, no control characters, at most the policy's length.
    private var sourceText: SchemaNode {
        plainText(
            type: Self.text,
            """
            Not blank, no control characters, at most \(policy.maxSourceFieldBytes) UTF-8 bytes (the schema \
            bounds characters; the byte limit is the decoder's). Accepted but not stored when longer than its \
            cap: bundleId \(policy.maxBundleIdBytes) (after device-identifier segments are dropped), model \
            \(policy.maxModelBytes), softwareVersion \(policy.maxSoftwareVersionBytes) bytes (name: only with the \
            worker's opt-in); a model is stored only as a hardware model identifier (letters, digits, a comma, \
            digits: Watch7,3).
            """)
    }

    /// Text a person reads (a `source` string, a retraction's `reason`): not blank, no control characters, at most
    /// the policy's source length in characters (the decoder counts UTF-8 bytes).
    func plainText(type: SchemaNode, _ description: String) -> SchemaNode {
        [
            "description": .string(description),
            "type": type, "maxLength": .integer(Int64(policy.maxSourceFieldBytes)), "pattern": "[^ ]",
            "not": Self.string(matching: "[\\u0000-\\u001f\\u007f-\\u009f]"),
        ]
    }

    /// `if metric == key then #/$defs/metric.key`.
    private func metricBranch(_ metric: Metric) -> SchemaNode {
        [
            "if": ["required": ["metric"], "properties": ["metric": ["const": .string(metric.key)]]],
            "then": ["$ref": .string("#/$defs/metric." + metric.key)],
        ]
    }

    // MARK: - Shared pieces

    /// Optional members: `null` means absent, as in the decoder.
    static let number: SchemaNode = ["number", "null"]
    static let text: SchemaNode = ["string", "null"]

    /// `member` is present and not null.
    static func present(_ member: String) -> SchemaNode {
        ["required": [.string(member)], "properties": [member: ["not": ["type": "null"]]]]
    }

    /// A string in which `pattern` finds a match; under `not`, non-strings (e.g. `null`) pass. Unanchored searches
    /// for a forbidden character avoid `$`, which Python's `re` lets match before a trailing newline.
    static func string(matching pattern: String) -> SchemaNode { ["type": "string", "pattern": .string(pattern)] }

    /// A real proleptic Gregorian date, years 0001-9999, leap years included (used with length 10, so no `$`,
    /// which Python's `re` would let match before a trailing newline).
    static let calendarDatePattern =
        "^(?:(?!0000)[0-9]{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)"
        + "|02-(?:0[1-9]|1[0-9]|2[0-8]))|(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:0[48]|[2468][048]|[13579][26])00)"
        + "-02-29)"
}
