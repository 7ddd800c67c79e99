import Gzip
import Producer

/// A POST body turned into records: inflated when gzip (never past the limit), split as its framing says, exactly
/// as `producer publish` splits a file of the same bytes (the same original bytes per record).
struct IngestBody: Sendable {
    /// The records in order, each with its original bytes and line.
    var records: [InputRecord]
    /// The body's size after gzip was undone.
    var decodedBytes: Int

    /// Reads `body` as `format` says.
    /// - Parameters:
    ///   - inflateRoom: the most the inflated bytes may take of the in-flight bytes bound now (the compressed body is
    ///     held too while they are made); a gzip body stops inflating there.
    ///   - idleRoom: the most they could take on an idle gateway (the bound less the compressed body).
    /// - Throws: ``IngestProblem``: 413 when it inflates past `maxBytes` or past `idleRoom` (it can never fit) or
    ///   holds more than `maxRecords` records, 429 when it inflates past `inflateRoom` below both (it may fit once
    ///   other requests end), 400 for a corrupt gzip stream, a body that is not the announced framing, a structural
    ///   fault of the array (saying where) or no record at all.
    init(
        _ body: [UInt8], format: IngestBodyFormat, maxBytes: Int, maxRecords: Int, inflateRoom: Int = .max,
        idleRoom: Int = .max
    ) throws(IngestProblem) {
        var bytes = body
        if format.gzip {
            let limit = min(maxBytes, inflateRoom)
            do throws(GzipError) {
                bytes = try GzipInflater.inflate(body, limit: limit)
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
        }
        guard bytes.count <= maxBytes else {
            throw .tooLarge("the body is larger than \(maxBytes) bytes (--max-body-bytes)")
        }
        decodedBytes = bytes.count
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
            records = JSONRecordReader.arrayRecords(bytes)
        case .lines:
            records = JSONRecordReader.lineRecords(bytes)
        }
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
        guard records.count <= maxRecords else {
            throw .tooLarge("the body holds \(records.count) records; at most \(maxRecords) (--max-records)")
        }
    }
}
