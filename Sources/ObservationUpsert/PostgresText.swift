/// Text encodings between Swift values and PostgreSQL parameters / results (never SQL: these are bound values).
enum PostgresText {
    /// A PostgreSQL array literal of quoted text elements, e.g. `{"a","b \"c\""}`, for `$n::text[]`.
    static func array(_ values: some Sequence<String>) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        for value in values {
            if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(quote)
            for byte in value.utf8 {
                if byte == quote || byte == backslash { bytes.append(backslash) }
                bytes.append(byte)
            }
            bytes.append(quote)
        }
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }

    private static let quote = UInt8(ascii: "\"")
    private static let backslash = UInt8(ascii: "\\")

    /// A PostgreSQL array literal of integers, e.g. `{1,2,3}`, for `$n::bigint[]`.
    static func array(_ values: some Sequence<Int64>) -> String {
        "{" + values.map(String.init).joined(separator: ",") + "}"
    }

    /// `jsonb` output (`{"a": 1, "b": [1, 2]}`) without the blanks PostgreSQL puts after `:` and `,`, so that the
    /// resource reads back as compact JSON like the mapper writes it (and ``StoredObservation/resourceWithMeta`` finds
    /// `"meta":{`). Blanks inside strings are kept. `jsonb` orders keys by length then bytes; that order stays.
    static func compactJSON(_ text: String) -> String {
        var out = [UInt8]()
        out.reserveCapacity(text.utf8.count)
        var inString = false
        var escaped = false
        for byte in text.utf8 {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") {
                continue
            }
            out.append(byte)
        }
        return String(decoding: out, as: UTF8.self)
    }
}
