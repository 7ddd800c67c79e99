/// Whitespace between JSON tokens.
package enum JSONWhitespace {
    /// `json` without the blanks, tabs and line breaks between tokens (string contents untouched), e.g. PostgreSQL's
    /// `jsonb` text `{"a": 1, "b": [2, 3]}` → `{"a":1,"b":[2,3]}`. `json` must be valid JSON.
    package static func removed(from json: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(json.utf8.count)
        var inString = false
        var escaped = false
        for byte in json.utf8 {
            if inString {
                out.append(byte)
                if escaped {
                    escaped = false
                } else if byte == 0x5C {  // backslash
                    escaped = true
                } else if byte == 0x22 {
                    inString = false
                }
            } else if byte == 0x22 {
                inString = true
                out.append(byte)
            } else if byte != 0x20, byte != 0x09, byte != 0x0A, byte != 0x0D {
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
