extension KafkaOutgoingMessage {
    /// An upper bound of the record's size as librdkafka counts it against the producer's `message.max.bytes`
    /// (`rd_kafka_msg_max_wire_size`): key, value and headers plus the record format v2 framing, every varint
    /// counted at its widest.
    public var maxWireSize: Int {
        var size = Self.recordFraming + (key?.count ?? 0) + value.count
        for header in headers { size += Self.headerFraming + header.key.utf8.count + (header.value?.count ?? 0) }
        return size
    }

    /// Length, attributes, timestamp and offset deltas, key and value lengths, header count.
    public static let recordFraming = 5 + 1 + 10 + 5 + 5 + 5 + 5
    /// A header's key and value lengths.
    public static let headerFraming = 5 + 5
}
