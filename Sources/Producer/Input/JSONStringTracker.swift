/// Whether each byte of JSON text, taken in order, falls inside a string (its quotes and escapes included): the one
/// rule ``JSONArraySplitter`` and ``JSONRecordCounter`` share, so that both find the same structure.
struct JSONStringTracker: Sendable {
    private var inString = false
    private var escaped = false

    /// Takes the next byte: true when it belongs to a string (an opening or closing quote, an escape, a character),
    /// false for structure outside strings.
    mutating func consume(_ byte: UInt8) -> Bool {
        if inString {
            if escaped {
                escaped = false
            } else if byte == 0x5C {
                escaped = true
            } else if byte == 0x22 {
                inString = false
            }
            return true
        }
        inString = byte == 0x22
        return inString
    }
}
