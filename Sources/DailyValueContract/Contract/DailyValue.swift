/// One validated DailyValue v1 event: a single metric's value for one person's local calendar day.
///
/// Built only by ``DailyValueDecoder`` (which enforces every rule of the event contract) or by a producer that
/// then validates it the same way. See `DESIGN.md`, "The event contract".
public struct DailyValue: Sendable, Hashable {
    /// How the person's local day is anchored in time.
    public enum Zone: Sendable, Hashable {
        /// An IANA time zone name (preferred: DST days are 23 or 25 hours).
        case timeZone(String)
        /// A fixed UTC offset in seconds east of UTC, from `utcOffset` (`+02:00`).
        case utcOffset(seconds: Int)
    }

    /// HKSource provenance: where the phone got the value.
    public struct Source: Sendable, Hashable {
        public var name: String?
        public var bundleId: String?
        public var model: String?
        public var softwareVersion: String?

        public init(name: String? = nil, bundleId: String? = nil, model: String? = nil, softwareVersion: String? = nil)
        {
            self.name = name
            self.bundleId = bundleId
            self.model = model
            self.softwareVersion = softwareVersion
        }
    }

    /// One part of a panel metric (blood pressure `systolic` / `diastolic`): the day's value and optional range.
    public struct Component: Sendable, Hashable {
        /// The part's key, e.g. `systolic` (see ``Metric/Component``).
        public var key: String
        public var value: Double
        public var min: Double?
        public var max: Double?

        public init(key: String, value: Double, min: Double? = nil, max: Double? = nil) {
            self.key = key
            self.value = value
            self.min = min
            self.max = max
        }
    }

    /// The phone's view of the day, from the optional `status` member (see docs/LIFECYCLE.md).
    public enum Status: String, Sendable, Hashable, CaseIterable {
        /// The local day is still open on the phone; more values may follow.
        case preliminary
        /// The day is complete.
        case final
    }

    /// Schema version of the event contract; only 1 exists.
    public static let schema = 1

    public var patient: String
    /// A metric catalog key, e.g. `heart_rate`.
    public var metric: String
    /// The person's local calendar day, `YYYY-MM-DD`.
    public var day: String
    public var zone: Zone
    /// The value in the catalog's UCUM unit (aliases already converted, e.g. SpO2 fraction × 100); `nil` exactly
    /// for a panel metric, whose values are in ``components``.
    public var value: Double?
    public var min: Double?
    public var max: Double?
    /// A panel metric's parts in catalog order (blood pressure: systolic, diastolic), in the catalog unit.
    public var components: [Component]
    /// Grows each time the phone recomputes the day; `nil` when absent (the Kafka record timestamp is used).
    public var version: Int64?
    public var source: Source?
    /// `nil` when absent: the mapper derives it from the record timestamp (see ObservationMapper).
    public var status: Status?

    public init(
        patient: String, metric: String, day: String, zone: Zone, value: Double?, min: Double? = nil,
        max: Double? = nil, components: [Component] = [], version: Int64? = nil, source: Source? = nil,
        status: Status? = nil
    ) {
        self.patient = patient
        self.metric = metric
        self.day = day
        self.zone = zone
        self.value = value
        self.min = min
        self.max = max
        self.components = components
        self.version = version
        self.source = source
        self.status = status
    }

    /// The `(patient, metric, day)` identity this event upserts.
    public var identity: ObservationIdentity { ObservationIdentity(patient: patient, metric: metric, day: day) }
}
