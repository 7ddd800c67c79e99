import DailyValueContract
import Hashing
import Kafka
import Producer

/// A body's records: read in one pass when every one is valid (each record a range of the body, ready to publish),
/// else record by record as `producer publish` reads a file, so that the answer says what is wrong and where.
struct IngestRecords {
    private enum Reading {
        /// Every record valid, read in one pass: the batch to publish and the body its records are ranges of.
        case whole(PreparedBatch, IngestBody)
        /// Read record by record: each record and its decoder outcome (such a body is refused unless every one is
        /// valid, which the one pass would have found: nothing more is made of them until then).
        case split([InputRecord], [Result<DailyEvent, DailyValueError>])
    }

    private let reading: Reading
    /// The body's size after gzip was undone.
    let decodedBytes: Int

    /// Reads `body`; on the record-by-record path the body's bytes are let go once split.
    /// - Throws: ``IngestProblem`` for what ``IngestBody/records()`` refuses; invalid records are not thrown but
    ///   are ``rejectedLines``.
    init(_ body: consuming IngestBody, publisher: DailyValuePublisher) throws(IngestProblem) {
        decodedBytes = body.decodedBytes
        let framing: JSONRecordCounter.Framing = body.format.framing == .array ? .array : .lines
        if let whole = publisher.prepare(body: body.bytes, framing: framing, limit: body.maxRecords) {
            reading = .whole(whole, body)
        } else {
            let records = try body.records()
            let timestampMs = DailyValuePublisher.nowMilliseconds()
            reading = .split(records, records.map { publisher.validate($0.bytes, recordTimestampMs: timestampMs) })
        }
    }

    /// The number of records, valid or not.
    var count: Int {
        switch reading {
        case .whole(let batch, _): batch.count
        case .split(let records, _): records.count
        }
    }

    /// The records the decoder refused: each one's position and reason, in order.
    var rejectedLines: [(position: Int, error: DailyValueError)] {
        guard case .split(_, let outcomes) = reading else { return [] }
        return outcomes.enumerated().compactMap { position, outcome in
            guard case .failure(let error) = outcome else { return nil }
            return (position, error)
        }
    }

    /// The valid records: each one's position and patient id (its record key), in order.
    var keyedLines: [(position: Int, patient: String)] {
        switch reading {
        case .whole(let batch, _):
            return batch.keyedLines.map { ($0.position, String(decoding: $0.key, as: UTF8.self)) }
        case .split(_, let outcomes):
            return outcomes.enumerated().compactMap { position, outcome in
                guard case .success(let event) = outcome else { return nil }
                return (position, event.patient)
            }
        }
    }

    /// The bytes of every record, without the whitespace between them.
    var recordBytes: Int {
        switch reading {
        case .whole(let batch, _): (0..<batch.count).reduce(0) { $0 + batch.records.valueRange(at: $1).count }
        case .split(let records, _): records.reduce(0) { $0 + $1.bytes.count }
        }
    }

    /// The 1-based line of the body on which each record at `positions` (ascending) starts: one pass over the body.
    func lines(of positions: [Int]) -> [Int] {
        switch reading {
        case .whole(let batch, let body): body.lines(at: positions.map { batch.records.valueRange(at: $0).lowerBound })
        case .split(let records, _): positions.map { records[$0].line }
        }
    }

    /// The records to publish, once nothing was refused.
    func batch(publisher: DailyValuePublisher) -> PreparedBatch {
        switch reading {
        case .whole(let batch, _): batch
        case .split(let records, _): publisher.prepare(lines: records.map(\.bytes))
        }
    }

    /// What makes two bodies "the same": the framing and the records' bytes (gzip or not, and the whitespace
    /// between records, do not matter).
    func fingerprint(framing: IngestBodyFormat.Framing) -> [UInt8] {
        var bytes = Array(framing.rawValue.utf8)
        bytes.append(0)
        switch reading {
        case .whole(let batch, _):
            for index in 0..<batch.count {
                bytes.append(contentsOf: batch.records.value(at: index))
                bytes.append(0x0A)
            }
        case .split(let records, _):
            for record in records {
                bytes.append(contentsOf: record.bytes)
                bytes.append(0x0A)
            }
        }
        return SHA256.digest(bytes)
    }
}
