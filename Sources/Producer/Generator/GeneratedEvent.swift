/// One event produced by ``PopulationGenerator``, in send order.
public struct GeneratedEvent: Sendable, Hashable {
    /// Why the generator emitted this event.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The first delivery of a person's day.
        case original
        /// A later recomputation of the same day, with a higher version.
        case late
        /// An exact byte-for-byte re-send of an earlier event.
        case duplicate
        /// An older version of a day sent after a newer one.
        case outOfOrder = "out_of_order"
        /// A retraction of the day with a version above every value sent for it (docs/LIFECYCLE.md).
        case retraction
        /// A broken event (see ``invalidClass``).
        case invalid
    }

    /// The identity and the highest valid version the generator ever sends for it (a retraction's, when the day is
    /// retracted): the store must end up with it.
    public struct OracleEntry: Sendable, Hashable {
        /// `patient/metric/day`.
        public var identity: String
        public var highestVersion: Int64
    }

    /// 1-based position in the output: the line number in `--out`, the send order on Kafka.
    public var sequence: Int
    /// The person (and so the Kafka key).
    public var patient: String
    /// The exact bytes sent as the Kafka value / written as one line (without the newline).
    public var bytes: [UInt8]
    public var kind: Kind
    /// Set for ``Kind/invalid`` events: the contract rule the event breaks.
    public var invalidClass: InvalidEventClass?
    /// Set on the ``Kind/original`` event of each identity.
    public var oracle: OracleEntry?
}
