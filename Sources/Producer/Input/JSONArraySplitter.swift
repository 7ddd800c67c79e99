/// Splits a top-level JSON array into its elements' original bytes, with the line each element starts on.
///
/// It tracks only strings, escapes and nesting, not full JSON syntax: each element is validated afterwards by the
/// DailyValue decoder. A structural problem (no closing `]`, data after it) becomes an ``InputRecord/problem``.
enum JSONArraySplitter {
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// The elements of the array in `bytes`, at most `limit + 1` of them: splitting stops once it has one element
    /// more than `limit`, so a caller refusing more than `limit` never holds the rest.
    static func split(_ bytes: [UInt8], limit: Int = .max - 1) -> [InputRecord] {
        bytes.withUnsafeBufferPointer { split($0, limit: limit) }
    }

    /// ``split(_:limit:)`` over a borrowed buffer (no bounds checks per byte: an HTTP body of 100 events is split
    /// per request).
    private static func split(_ bytes: UnsafeBufferPointer<UInt8>, limit: Int) -> [InputRecord] {
        var records: [InputRecord] = []
        var line = 1
        var index = 0
        func skipWhitespace() {
            while index < bytes.count, isWhitespace(bytes[index]) {
                if bytes[index] == 0x0A { line += 1 }
                index += 1
            }
        }
        skipWhitespace()
        index += 1  // the opening '[' (checked by the caller)
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return records + trailing(bytes, from: index, line: line)
        }
        while true {
            skipWhitespace()
            let start = index
            let startLine = line
            var depth = 0
            var strings = JSONStringTracker()
            while index < bytes.count {
                let byte = bytes[index]
                if byte == 0x0A { line += 1 }
                if strings.consume(byte) {
                    // Inside a string: no structure.
                } else if byte == 0x7B || byte == 0x5B {
                    depth += 1
                } else if byte == 0x7D || byte == 0x5D {
                    if depth > 0 {
                        depth -= 1
                    } else if byte == 0x5D {
                        break
                    }
                } else if byte == 0x2C, depth == 0 {
                    break
                }
                index += 1
            }
            var end = index
            while end > start, isWhitespace(bytes[end - 1]) { end -= 1 }
            let element = Array(bytes[start..<end])
            guard index < bytes.count else {
                records.append(InputRecord(line: startLine, bytes: element, problem: "unterminated JSON array"))
                return records
            }
            records.append(InputRecord(line: startLine, bytes: element))
            if records.count > limit { return records }
            let separator = bytes[index]
            index += 1
            if separator == UInt8(ascii: "]") { return records + trailing(bytes, from: index, line: line) }
        }
    }

    /// A problem record when anything but whitespace follows the closing bracket.
    private static func trailing(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, line: Int) -> [InputRecord] {
        var line = line
        for index in start..<bytes.count where !isWhitespace(bytes[index]) {
            for byte in bytes[start..<index] where byte == 0x0A { line += 1 }
            return [
                InputRecord(
                    line: line, bytes: Array(bytes[index...]), problem: "trailing data after the JSON array"
                )
            ]
        }
        return []
    }
}
