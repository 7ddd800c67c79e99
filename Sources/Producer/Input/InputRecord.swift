/// One event read from an input file: its original bytes and where it started.
public struct InputRecord: Sendable, Hashable {
    /// 1-based line number where the record starts.
    public var line: Int
    /// The record exactly as in the file (a JSON line without its newline, or one array element).
    public var bytes: [UInt8]
    /// A structural problem of the file at this record (e.g. an unterminated array); such a record is invalid.
    public var problem: String?

    public init(line: Int, bytes: [UInt8], problem: String? = nil) {
        self.line = line
        self.bytes = bytes
        self.problem = problem
    }
}
