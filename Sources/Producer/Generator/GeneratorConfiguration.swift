/// Everything that determines a synthetic population; equal configurations give byte-identical output.
public struct GeneratorConfiguration: Sendable, Hashable {
    /// Number of people, `p-000001` … .
    public var patients: Int
    /// Number of consecutive local days per person, from ``startDay``.
    public var days: Int
    /// Which metrics each person may have on a day.
    public var metrics: [MetricProfile]
    public var startDay: CivilDay
    public var seed: UInt64
    /// Share of identities re-delivered 1–3 days later with a higher version (a recomputed day).
    public var lateShare: Double
    /// Share of identities whose original event is re-sent byte for byte (a producer retry, a replay).
    public var duplicateShare: Double
    /// Share of identities for which an older version is sent after the newer one.
    public var outOfOrderShare: Double
    /// Share of identities retracted 1–3 days later with a version above all their values (docs/LIFECYCLE.md).
    public var retractionShare: Double
    /// Share of all emitted events that are invalid (each class equally likely).
    public var invalidShare: Double
    /// Which invalid classes to draw from.
    public var invalidClasses: [InvalidEventClass]

    public init(
        patients: Int = 100, days: Int = 7, metrics: [MetricProfile] = MetricProfile.builtin,
        startDay: CivilDay = CivilDay(year: 2026, month: 1, day: 1), seed: UInt64 = 1, lateShare: Double = 0,
        duplicateShare: Double = 0, outOfOrderShare: Double = 0, retractionShare: Double = 0, invalidShare: Double = 0,
        invalidClasses: [InvalidEventClass] = InvalidEventClass.allCases
    ) {
        self.patients = patients
        self.days = days
        self.metrics = metrics
        self.startDay = startDay
        self.seed = seed
        self.lateShare = lateShare
        self.duplicateShare = duplicateShare
        self.outOfOrderShare = outOfOrderShare
        self.retractionShare = retractionShare
        self.invalidShare = invalidShare
        self.invalidClasses = invalidClasses
    }

    /// Checks every field, naming the first one that is out of range.
    ///
    /// - Throws: ``ProducerConfigurationError`` with the field and the rule.
    public func validate() throws(ProducerConfigurationError) {
        guard patients > 0 else { throw ProducerConfigurationError(option: "patients", rule: "must be positive") }
        guard days > 0 else { throw ProducerConfigurationError(option: "days", rule: "must be positive") }
        guard !metrics.isEmpty else { throw ProducerConfigurationError(option: "metrics", rule: "must not be empty") }
        let shares = [
            ("late-share", lateShare), ("duplicate-share", duplicateShare), ("out-of-order-share", outOfOrderShare),
            ("retraction-share", retractionShare),
        ]
        for (name, share) in shares where !(0...1).contains(share) {
            throw ProducerConfigurationError(option: name, rule: "must be between 0 and 1")
        }
        guard (0...0.9).contains(invalidShare) else {
            throw ProducerConfigurationError(option: "invalid-share", rule: "must be between 0 and 0.9")
        }
        guard invalidShare == 0 || !invalidClasses.isEmpty else {
            throw ProducerConfigurationError(option: "invalid-classes", rule: "must not be empty")
        }
    }
}
