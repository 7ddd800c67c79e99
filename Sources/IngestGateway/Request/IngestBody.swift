import HTTPServer
import Producer

/// A POST body with gzip undone (never past the limit), and read as its framing says, exactly as `producer publish`
/// reads a file of the same bytes: in one pass when every event is valid
/// (``DailyValuePublisher/prepare(body:framing:limit:)``), else record by record (``records()``), which says what is
/// wrong and where.
struct IngestBody: Sendable {
    /// The body's bytes after gzip was undone.
    var bytes: [UInt8]
    let format: IngestBodyFormat
    let maxRecords: Int
    /// The body's size after gzip was undone.
    var decodedBytes: Int { bytes.count }

    /// Undoes gzip as `format` says.
    /// - Parameters:
    ///   - inflateRoom: the most the inflated bytes may take of the in-flight bytes bound now (the compressed body is
    ///     held too while they are made); a gzip body stops inflating there.
    ///   - idleRoom: the most they could take on an idle gateway (the bound less the compressed body).
    /// - Throws: ``IngestProblem``: 413 when it inflates past `maxBytes` or past `idleRoom` (it can never fit) or
    ///   holds more than `maxRecords` records (counted as it inflates), 429 when it inflates past `inflateRoom`
    ///   below both (it may fit once other requests end), 400 for a corrupt gzip stream.
    init(
        _ body: [UInt8], format: IngestBodyFormat, maxBytes: Int, maxRecords: Int, inflateRoom: Int = .max,
        idleRoom: Int = .max
    ) throws(IngestProblem) {
        var bytes = body
        if format.gzip {
            let limit = min(maxBytes, inflateRoom)
            // Records are counted as the bytes come: a body of too many records stops inflating at the first one
            // past the limit (a few bytes each), however far it would inflate.
            var counter = JSONRecordCounter(format.framing == .array ? .array : .lines)
            var inflated: [UInt8]?
            do throws(GzipError) {
                inflated = try GzipInflater.inflate(body, limit: limit) { piece in
                    counter.feed(piece)
                    return counter.count <= maxRecords
                }
            } catch {
                switch error.code {
                case .tooLarge where limit < maxBytes && inflateRoom < idleRoom:
                    throw .tooManyRequests(
                        "the body inflates past what the gateway may still hold (--max-in-flight-bytes); retry later")
                case .tooLarge where limit < maxBytes:
                    throw .tooLarge(
                        "the body and its inflated bytes are more than the gateway holds at once "
                            + "(--max-in-flight-bytes \(idleRoom + body.count)); send it smaller or uncompressed")
                case .tooLarge: throw .tooLarge("the body inflates to more than \(maxBytes) bytes (--max-body-bytes)")
                case .malformed: throw .malformed("the gzip body cannot be read: \(error.message)")
                }
            }
            guard let inflated else { throw .tooManyRecords(maxRecords) }
            bytes = inflated
        }
        guard bytes.count <= maxBytes else {
            throw .tooLarge("the body is larger than \(maxBytes) bytes (--max-body-bytes)")
        }
        self.bytes = bytes
        self.format = format
        self.maxRecords = maxRecords
    }

    /// The records in order, each with its original bytes and line; at most `maxRecords + 1` are made.
    /// - Throws: ``IngestProblem``: 413 for more than `maxRecords` records, 400 for a body that is not the announced
    ///   framing, a structural fault of the array (saying where) or no record at all.
    func records() throws(IngestProblem) -> [InputRecord] {
        let records: [InputRecord]
        switch format.framing {
        case .array:
            guard JSONRecordReader.startsWithArray(bytes) else {
                throw .malformed(
                    "an application/json body must be one JSON array of events (JSON lines: application/x-ndjson)",
                    errors: [
                        IngestProblem.RecordError(
                            index: 0, line: 1, pointer: "", reasonClass: "MalformedArray",
                            reason: "the first character that is not whitespace must be '['")
                    ])
            }
            records = JSONRecordReader.arrayRecords(bytes, limit: maxRecords)
        case .lines:
            records = JSONRecordReader.lineRecords(bytes, limit: maxRecords)
        }
        // The split stopped at one record past the limit: nothing more was made.
        guard records.count <= maxRecords else { throw .tooManyRecords(maxRecords) }
        let problems = records.enumerated().compactMap { index, record in
            record.problem.map {
                IngestProblem.RecordError(
                    index: index, line: record.line, pointer: "", reasonClass: "MalformedArray", reason: $0)
            }
        }
        guard problems.isEmpty else {
            let first = problems[0]
            throw .malformed("the JSON array is malformed at line \(first.line): \(first.reason)", errors: problems)
        }
        guard !records.isEmpty else { throw .malformed("the body holds no records") }
        return records
    }

    /// The 1-based line of each byte at `offsets` (ascending), in one pass over the bytes.
    func lines(at offsets: [Int]) -> [Int] {
        var lines: [Int] = []
        lines.reserveCapacity(offsets.count)
        var line = 1
        var index = 0
        bytes.withUnsafeBufferPointer { buffer in
            for offset in offsets {
                precondition(offset >= index && offset <= buffer.count, "offsets must ascend within the body")
                while index < offset {
                    if buffer[index] == 0x0A { line += 1 }
                    index += 1
                }
                lines.append(line)
            }
        }
        return lines
    }

    /// What one record costs beside its bytes: the ``InputRecord`` in the array and its own byte array's header and
    /// allocation.
    static let bytesPerRecord = MemoryLayout<InputRecord>.stride + 48
}
