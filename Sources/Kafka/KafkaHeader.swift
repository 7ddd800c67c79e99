/// A Kafka record header. A `nil` value is a null header value, distinct from an empty one.
public struct KafkaHeader: Sendable, Hashable {
    /// The header key.
    public var key: String
    /// The header value; `nil` for a null value.
    public var value: [UInt8]?

    /// Creates the value from its fields.
    public init(key: String, value: [UInt8]?) {
        self.key = key
        self.value = value
    }

    /// A header whose value is the UTF-8 bytes of `string`.
    public init(key: String, string: String) {
        self.init(key: key, value: Array(string.utf8))
    }
}
