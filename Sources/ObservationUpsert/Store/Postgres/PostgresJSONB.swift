import DailyValueContract
import Essentials
import PostgresClient

/// How the PostgreSQL store reads back its `jsonb` column.
enum PostgresJSONB {
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
