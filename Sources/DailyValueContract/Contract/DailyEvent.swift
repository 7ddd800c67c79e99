import JSON

/// A versioned retraction of one day (docs/LIFECYCLE.md): `{"schema":1,"kind":"retraction","patient":…,"metric":…,
/// "day":…,"version":…,"reason":…}`. An explicit event, not a Kafka null tombstone (which carries no version and
/// disappears under compaction).
public struct DailyValueRetraction: Sendable, Hashable {
    public var patient: String
    /// A metric catalog key.
    public var metric: String
    /// The local calendar day, `YYYY-MM-DD`.
    public var day: String
    /// Competes with the day's values under the same version guard; required (never the record timestamp).
    public var version: Int64
    /// Why the day is withdrawn, in words (no control characters, at most 256 UTF-8 bytes).
    public var reason: String

    public init(patient: String, metric: String, day: String, version: Int64, reason: String) {
        self.patient = patient
        self.metric = metric
        self.day = day
        self.version = version
        self.reason = reason
    }

    /// The `(patient, metric, day)` identity this retraction withdraws.
    public var identity: ObservationIdentity { ObservationIdentity(patient: patient, metric: metric, day: day) }

    /// The canonical event JSON (one line), as the producer publishes it; the decoder reads it back equal.
    public func jsonLine() -> String {
        JSONWriter.string(capacity: 160) { w in
            w.beginObject()
            w.key("schema")
            w.value(Int64(DailyValue.schema))
            w.member("kind", "retraction")
            w.member("patient", patient)
            w.member("metric", metric)
            w.member("day", day)
            w.key("version")
            w.value(version)
            w.member("reason", reason)
            w.endObject()
        }
    }
}

/// One validated event of the topic: a day's value, or a retraction of the day.
public enum DailyEvent: Sendable, Hashable {
    case value(ValidatedDailyValue)
    case retraction(DailyValueRetraction)

    public var identity: ObservationIdentity {
        switch self {
        case .value(let value): value.identity
        case .retraction(let retraction): retraction.identity
        }
    }

    /// The patient id (the Kafka key).
    public var patient: String { identity.patient }

    /// The version the upsert is guarded by.
    public var version: Int64 {
        switch self {
        case .value(let value): value.version
        case .retraction(let retraction): retraction.version
        }
    }
}
