import Hashing
import Kafka
import Producer

/// A body's records, ready to publish: read in one pass when every one is valid (each record a range of the body),
/// else record by record as `producer publish` reads a file, so that the answer says what is wrong and where.
struct IngestRecords {
    /// The records to publish and, when read record by record, the rejections.
    let batch: PreparedBatch
    private let body: IngestBody
    /// The records one by one, or nil when the body was read in one pass (every record valid, and in `batch`).
    private let split: [InputRecord]?

    /// Reads `body`.
    /// - Throws: ``IngestProblem`` for what ``IngestBody/records()`` refuses; invalid records are not thrown but
    ///   are rejections of ``batch``.
    init(_ body: IngestBody, publisher: DailyValuePublisher) throws(IngestProblem) {
        self.body = body
        let framing: JSONRecordCounter.Framing = body.format.framing == .array ? .array : .lines
        if let whole = publisher.prepare(body: body.bytes, framing: framing, limit: body.maxRecords) {
            batch = whole
            split = nil
        } else {
            let records = try body.records()
            batch = publisher.prepare(lines: records.map(\.bytes))
            split = records
        }
    }

    /// The number of records, valid or not.
    var count: Int { batch.count }

    /// The bytes of every record, without the whitespace between them.
    var recordBytes: Int {
        guard let split else { return (0..<count).reduce(0) { $0 + batch.records.valueRange(at: $1).count } }
        return split.reduce(0) { $0 + $1.bytes.count }
    }

    /// The 1-based line of the body on which the record at `position` starts.
    func line(of position: Int) -> Int {
        split?[position].line ?? body.line(at: batch.records.valueRange(at: position).lowerBound)
    }

    /// What makes two bodies "the same": the framing and the records' bytes (gzip or not, and the whitespace
    /// between records, do not matter).
    func fingerprint() -> [UInt8] {
        var bytes = Array(body.format.framing.rawValue.utf8)
        bytes.append(0)
        for position in 0..<count {
            bytes.append(contentsOf: split?[position].bytes[...] ?? batch.records.value(at: position))
            bytes.append(0x0A)
        }
        return SHA256.digest(bytes)
    }
}
