/// Text encodings between Swift values and PostgreSQL parameters / results (never SQL: these are bound values).
package enum PostgresText {
    /// A PostgreSQL array literal of quoted text elements, e.g. `{"a","b \"c\""}`, for `$n::text[]`.
    package static func array(_ values: some Sequence<String>) -> String {
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
    package static func array(_ values: some Sequence<Int64>) -> String {
        "{" + values.map(String.init).joined(separator: ",") + "}"
    }
}
