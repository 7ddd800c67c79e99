import DailyValueContract
import Kafka

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// The one pass of ``DailyValuePublisher/prepare(body:framing:limit:)``: each `read…` returns false at the first
/// thing that is not a valid event where one belongs.
struct BodyEventReader {
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
