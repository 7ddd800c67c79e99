import DailyValueContract
import Kafka

extension DailyValuePublisher {
    /// Validates a body of events held in memory (an HTTP body: one JSON array, or JSON lines) in one pass over its
    /// bytes, and prepares each event as a record whose value is its range of the body: no copy of an event before
    /// librdkafka's own.
    ///
    /// Only a body the record-by-record path would send whole takes this path: each event exactly the bytes that
    /// ``JSONRecordReader/arrayRecords(_:limit:)`` or ``JSONRecordReader/lineRecords(_:limit:)`` give, validated
    /// by the same decoder as ``prepare(lines:)``.
    /// - Returns: nil when anything is wrong with the body (its framing, any event, no event, more than `limit`):
    ///   the record-by-record path then says what and where.
    public func prepare(body: [UInt8], framing: JSONRecordCounter.Framing, limit: Int) -> PreparedBatch? {
        let timestampMs = Self.nowMilliseconds()
        var records = KafkaRecordBatch(topic: configuration.topic, values: body, timestampMs: timestampMs)
        let decoder = configuration.decoder
        let complete = body.withUnsafeBytes { buffer in
            var reader = BodyEventReader(buffer: buffer, decoder: decoder, timestampMs: timestampMs, limit: limit)
            return framing == .array ? reader.readArray(into: &records) : reader.readLines(into: &records)
        }
        guard complete, records.count > 0 else { return nil }
        return PreparedBatch(
            rejections: Array(repeating: nil, count: records.count), records: records,
            positions: Array(0..<records.count))
    }
}
