/// How many of the cluster's brokers the client is connected to, from librdkafka's latest statistics.
public struct KafkaBrokerAvailability: Sendable, Hashable {
    /// Brokers in state `UP`.
    public var up: Int
    /// Brokers known from metadata (bootstrap-only entries excluded).
    public var known: Int

    /// Creates the value from its fields.
    public init(up: Int, known: Int) {
        self.up = up
        self.known = known
    }
}
