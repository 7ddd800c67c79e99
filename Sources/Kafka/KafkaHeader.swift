/// A Kafka record header. A `nil` value is a null header value, distinct from an empty one.
public struct KafkaHeader: Sendable, Hashable {
    public var key: String
    public var value: [UInt8]?

    public init(key: String, value: [UInt8]?) {
        self.key = key
        self.value = value
    }

    /// A header whose value is the UTF-8 bytes of `string`.
    public init(key: String, string: String) {
        self.init(key: key, value: Array(string.utf8))
    }
}
