import DailyValueContract
import Foundation
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

/// The one pass of ``DailyValuePublisher/prepare(body:framing:limit:)``: each `read…` returns false at the first
/// thing that is not a valid event where one belongs.
private struct BodyEventReader {
    let buffer: UnsafeRawBufferPointer
    let decoder: DailyValueDecoder
    let timestampMs: Int64
    let limit: Int

    /// `[`, events separated by `,`, `]`, with whitespace around any of them.
    mutating func readArray(into records: inout KafkaRecordBatch) -> Bool {
        var index = skipWhitespace(from: 0)
        guard index < buffer.count, buffer[index] == UInt8(ascii: "[") else { return false }
        index += 1
        while true {
            let start = skipWhitespace(from: index)
            guard records.count < limit,
                let (event, end) = try? decoder.validateEvent(in: buffer, at: start, recordTimestampMs: timestampMs)
            else { return false }
            records.append(value: start..<end, key: event.patient.utf8)
            index = skipWhitespace(from: end)
            guard index < buffer.count else { return false }
            if buffer[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard buffer[index] == UInt8(ascii: "]") else { return false }
            return skipWhitespace(from: index + 1) == buffer.count
        }
    }

    /// One event per line (`\n`, a `\r` before it dropped); blank lines skipped.
    mutating func readLines(into records: inout KafkaRecordBatch) -> Bool {
        var start = 0
        while start < buffer.count {
            let newline = memchr(buffer.baseAddress! + start, 0x0A, buffer.count - start)
            let end = newline.map { buffer.baseAddress!.distance(to: UnsafeRawPointer($0)) } ?? buffer.count
            var lineEnd = end
            if lineEnd > start, buffer[lineEnd - 1] == 0x0D { lineEnd -= 1 }
            let line = UnsafeRawBufferPointer(rebasing: buffer[start..<lineEnd])
            if let event = try? decoder.validateEvent(line, recordTimestampMs: timestampMs) {
                guard records.count < limit else { return false }
                records.append(value: start..<lineEnd, key: event.patient.utf8)
            } else if !line.allSatisfy(JSONArraySplitter.isWhitespace) {
                return false
            }
            start = end + 1
        }
        return true
    }

    private func skipWhitespace(from index: Int) -> Int {
        var index = index
        while index < buffer.count, JSONArraySplitter.isWhitespace(buffer[index]) { index += 1 }
        return index
    }
}
