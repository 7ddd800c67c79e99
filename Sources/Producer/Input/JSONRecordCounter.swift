/// Counts the records of a body piece by piece, as its bytes arrive (from an inflater, say), without making any:
/// exactly the records ``JSONRecordReader/arrayRecords(_:limit:)`` or ``JSONRecordReader/lineRecords(_:limit:)``
/// would make of the same bytes when they are well-formed, and never more (the split's problem records — no closing
/// bracket, data after it — may be left out), so a body with too many records is refused before it is whole, let
/// alone split, and no body the split would keep within a limit is.
///
/// A JSON array's records are its top-level elements: its top-level commas (outside strings, at the array's own
/// depth) plus one when it is not empty. JSON lines' records are the lines that are not blank.
public struct JSONRecordCounter: Sendable {
    /// How the records are written.
    public enum Framing: Sendable {
        case array
        case lines
    }

    private let framing: Framing
    /// Records seen whole so far (array: top-level separators; lines: lines ended that were not blank).
    private var separators = 0
    /// Array: inside the array, a byte other than whitespace was seen (it has at least one element).
    /// Lines: the current line has a byte other than whitespace.
    private var pendingContent = false
    private var depth = 0
    private var strings = JSONStringTracker()
    /// Array: the closing bracket was seen; later bytes hold no records.
    private var closed = false

    public init(_ framing: Framing) {
        self.framing = framing
    }

    /// Records in the bytes seen so far, counting a record still open (a last line without `\n`, an element before
    /// the next comma).
    public var count: Int { separators + (pendingContent ? 1 : 0) }

    /// Reads the next piece of the body.
    public mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>) {
        switch framing {
        case .lines: feedLines(bytes)
        case .array: feedArray(bytes)
        }
    }

    private mutating func feedLines(_ bytes: UnsafeBufferPointer<UInt8>) {
        for byte in bytes {
            if byte == 0x0A {
                if pendingContent { separators += 1 }
                pendingContent = false
            } else if !JSONArraySplitter.isWhitespace(byte) {
                pendingContent = true
            }
        }
    }

    /// Mirrors ``JSONArraySplitter``: the first byte that is not whitespace opens the array (the caller refuses a
    /// body whose first byte is not `[`); a closing brace or bracket without its opening one is ignored; the
    /// array's own `]` ends it.
    private mutating func feedArray(_ bytes: UnsafeBufferPointer<UInt8>) {
        for byte in bytes where !closed {
            if depth > 0, strings.consume(byte) {
                pendingContent = true
                continue
            }
            if JSONArraySplitter.isWhitespace(byte) { continue }
            guard depth > 0 else {
                depth = 1
                continue
            }
            switch byte {
            case 0x7B, 0x5B:
                depth += 1
                pendingContent = true
            case 0x7D where depth > 1, 0x5D where depth > 1:
                depth -= 1
            case 0x5D:
                closed = true
            case 0x2C where depth == 1:
                separators += 1
                pendingContent = true
            default:
                pendingContent = true
            }
        }
    }
}
