import JSON

// Pass 1 of decoding: one walk over the bytes that checks the JSON syntax, rejects duplicate members and captures
// each known member's token. Semantic checks run afterwards in a fixed order (see DailyValueDecoder.swift), so the
// reported error does not depend on the order of members in the message.

/// A captured member value.
enum RawJSONValue {
    case string(JSONScanner.StringToken)
    case number(JSONScanner.NumberToken)
    /// An object starting at this byte offset (re-scanned in pass 2; already syntax-checked).
    case object(start: Int)
    case null
    /// `true`, `false` or an array: never valid for a DailyValue field.
    case other
}

extension DailyValueDecoder {
    /// Scans one top-level JSON object and returns the known members' raw values, indexed by ``DailyValueField``.
    /// With `toEnd`, only whitespace may follow the object; without, the scanner stops just past its `}`.
    func scanMembers(_ scanner: inout JSONScanner, toEnd: Bool = true) throws(DailyValueError)
        -> DailyValueField.RawMembers
    {
        var raw = DailyValueField.RawMembers(repeating: nil)
        var unknownKeys: Set<[UInt8]>? = nil
        scanner.skipWhitespace()
        guard scanner.peek == 0x7B else {
            throw scanner.violation(scanner.isAtEnd ? "empty message" : "the message must be a JSON object")
        }
        try scanner.consume(0x7B, "'{'")
        if !scanner.consume(0x7D) {
            repeat {
                scanner.skipWhitespace()
                let key = try scanner.readString()
                try scanner.consume(0x3A, "':'")
                let field = Self.withKeyBytes(key, scanner) { DailyValueField.match($0) }
                guard let field else {
                    let bytes = key.hasEscapes ? scanner.unescapedBytes(key) : Array(scanner.rawBytes(key))
                    guard unknownKeys.insert(bytes) else {
                        throw DailyValueError(.duplicateField, field: "", "an unknown member appears twice")
                    }
                    try scanner.skip(depth: 1, maxDepth: policy.maxNestingDepth)
                    continue
                }
                guard raw[field.rawValue] == nil else {
                    throw DailyValueError(.duplicateField, field: field.name, "the member appears more than once")
                }
                raw[field.rawValue] = try scanValue(&scanner)
            } while scanner.consume(0x2C)
            try scanner.consume(0x7D, "',' or '}'")
        }
        guard toEnd else { return raw }
        scanner.skipWhitespace()
        guard scanner.isAtEnd else { throw scanner.violation("trailing data after the JSON object") }
        return raw
    }

    /// Captures one member value, skipping (and syntax-checking) objects and arrays.
    private func scanValue(_ scanner: inout JSONScanner) throws(DailyValueError) -> RawJSONValue {
        scanner.skipWhitespace()
        switch scanner.peek {
        case 0x22: return .string(try scanner.readString())
        case 0x2D, 0x30...0x39: return .number(try scanner.readNumber())
        case 0x7B:
            let start = scanner.pos
            try scanner.skip(depth: 1, maxDepth: policy.maxNestingDepth)
            return .object(start: start)
        case 0x6E where scanner.consumeLiteral("null"): return .null
        default:
            try scanner.skip(depth: 1, maxDepth: policy.maxNestingDepth)
            return .other
        }
    }

    /// Calls `body` with the key's bytes, escapes resolved (allocates only for escaped keys).
    static func withKeyBytes<T>(
        _ key: JSONScanner.StringToken, _ scanner: JSONScanner, _ body: (UnsafeRawBufferPointer) -> T
    ) -> T {
        guard key.hasEscapes else { return body(scanner.rawBytes(key)) }
        return scanner.unescapedBytes(key).withUnsafeBytes(body)
    }
}

extension Optional where Wrapped == Set<[UInt8]> {
    /// Inserts into the set, creating it on first use; false when already present.
    fileprivate mutating func insert(_ key: [UInt8]) -> Bool {
        if self == nil { self = [] }
        return self!.insert(key).inserted
    }
}
