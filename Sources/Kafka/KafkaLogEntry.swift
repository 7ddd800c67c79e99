/// A log line emitted by librdkafka (forwarded to an app closure when one is configured).
public struct KafkaLogEntry: Sendable, Hashable, CustomStringConvertible {
    /// Syslog level: 0 emergency … 3 error, 4 warning, 5 notice, 6 info, 7 debug.
    public var level: Int32
    /// librdkafka's facility, e.g. `OFFSET`, `MAXPOLL`, `FAIL`.
    public var facility: String
    /// The log line's text.
    public var message: String

    /// Creates the value from its fields.
    public init(level: Int32, facility: String, message: String) {
        self.level = level
        self.facility = facility
        self.message = message
    }

    public var description: String { "%\(level)|\(facility)| \(message)" }
}
