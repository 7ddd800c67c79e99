extension JSONRecordReader {
    /// The records of a JSON array held in memory (an HTTP body), exactly as a file holding it gives them: each
    /// element's original bytes and line, and a ``InputRecord/problem`` for a structural fault (no closing `]`,
    /// data after it).
    /// At most `limit + 1` records are made: a caller refusing more than `limit` never holds the rest.
    /// - Precondition: the first byte that is not whitespace is `[`.
    public static func arrayRecords(_ bytes: [UInt8], limit: Int = .max - 1) -> [InputRecord] {
        JSONArraySplitter.split(bytes, limit: limit)
    }

    /// The records of JSON lines held in memory (an NDJSON body), exactly as a file of them gives them: blank lines
    /// skipped, `\r\n` accepted, a last line without `\n` included. At most `limit + 1` records are made.
    public static func lineRecords(_ bytes: [UInt8], limit: Int = .max - 1) -> [InputRecord] {
        var records: [InputRecord] = []
        var start = 0
        var line = 1
        while start < bytes.count, records.count <= limit {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            if let record = lineRecord(bytes[start..<end], line: line) { records.append(record) }
            start = end + 1
            line += 1
        }
        return records
    }

    /// Whether `bytes` start, after whitespace, with `[`: one JSON array rather than JSON lines.
    public static func startsWithArray(_ bytes: [UInt8]) -> Bool {
        bytes.first { !JSONArraySplitter.isWhitespace($0) } == UInt8(ascii: "[")
    }
}
