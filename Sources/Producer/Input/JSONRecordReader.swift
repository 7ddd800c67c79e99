#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// Reads events from a file or stdin: JSON lines (streamed in 1 MiB chunks, blank lines skipped, `\r\n` accepted)
/// or, when the first non-blank byte is `[`, one JSON array whose elements are the events (read whole).
///
/// Records keep their original bytes so the producer can send exactly what was given.
public final class JSONRecordReader {
    /// `<stdin>` or the path, for `file:line: reason` diagnostics.
    public let displayName: String
    private let descriptor: Int32
    private let closesHandle: Bool
    private var buffer: [UInt8] = []
    private var position = 0
    private var reachedEnd = false
    private var nextLine = 1
    private var arrayRecords: [InputRecord]?
    private static let chunkSize = 1 << 20

    /// Opens `path`; `-` is standard input.
    ///
    /// - Throws: ``ProducerConfigurationError`` when the file cannot be opened.
    public init(path: String) throws(ProducerConfigurationError) {
        if path == "-" {
            displayName = "<stdin>"
            descriptor = STDIN_FILENO
            closesHandle = false
        } else {
            descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                throw ProducerConfigurationError(option: path, rule: "cannot open the file for reading")
            }
            displayName = path
            closesHandle = true
        }
    }

    deinit {
        if closesHandle { close(descriptor) }
    }

    /// The next record, or `nil` at the end of the input.
    /// - Throws: the underlying read error.
    public func next() throws -> InputRecord? {
        if arrayRecords == nil, try startsWithArray() {
            while !reachedEnd { try fill() }
            arrayRecords = JSONArraySplitter.split(Array(buffer[position...])).reversed()
        }
        if arrayRecords != nil { return arrayRecords?.popLast() }
        return try nextLineRecord()
    }

    // MARK: - JSON lines

    private func nextLineRecord() throws -> InputRecord? {
        while true {
            if let newline = buffer[position...].firstIndex(of: UInt8(ascii: "\n")) {
                if let record = take(upTo: newline, skipping: 1) { return record }
                continue
            }
            if reachedEnd {
                guard position < buffer.count else { return nil }
                return take(upTo: buffer.count, skipping: 0)
            }
            try fill()
        }
    }

    /// Consumes `buffer[position..<end]` plus `skip` bytes; `nil` for a blank line.
    private func take(upTo end: Int, skipping skip: Int) -> InputRecord? {
        let record = Self.lineRecord(buffer[position..<end], line: nextLine)
        position = end + skip
        nextLine += 1
        return record
    }

    /// One JSON line (without its `\n`) as a record: a trailing `\r` removed; `nil` for a blank line.
    static func lineRecord(_ bytes: ArraySlice<UInt8>, line: Int) -> InputRecord? {
        var bytes = bytes
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        return bytes.allSatisfy(JSONArraySplitter.isWhitespace) ? nil : InputRecord(line: line, bytes: Array(bytes))
    }

    // MARK: - Buffering

    /// Whether the first non-blank byte is `[` (reads until one is seen or the input ends).
    private func startsWithArray() throws -> Bool {
        while true {
            if let first = buffer[position...].first(where: { !JSONArraySplitter.isWhitespace($0) }) {
                return first == UInt8(ascii: "[")
            }
            if reachedEnd { return false }
            try fill()
        }
    }

    private func fill() throws {
        if position > 0, arrayRecords == nil, position >= buffer.count / 2 {
            buffer.removeFirst(position)
            position = 0
        }
        let start = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: Self.chunkSize))
        var count: Int
        repeat {
            count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + start, Self.chunkSize) }
        } while count < 0 && errno == EINTR
        buffer.removeLast(Self.chunkSize - max(0, count))
        guard count >= 0 else { throw ProducerConfigurationError(option: displayName, rule: "cannot read the file") }
        if count == 0 { reachedEnd = true }
    }
}
