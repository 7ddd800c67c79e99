/// A small JSON document parsed whole into a tree (a JWT's header and claims, a JWKS), with the ``JSONScanner``'s
/// strict grammar; the contract's decoders read events from the scanner directly instead.
///
/// Beyond RFC 8259: exactly one value with only whitespace after it, each member name at most once per object (RFC
/// 7515 §5.2 allows refusing duplicates, and two readers of one token can then never disagree), and at most
/// `maxDepth` nested arrays and objects.
package indirect enum JSONValue: Sendable, Equatable {
    case string(String)
    /// A number as a `Double`; infinite when it overflows one (``number`` then is nil).
    case number(Double)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([String: JSONValue])

    /// The value `bytes` hold.
    /// - Throws: ``JSONError``: `syntax` (grammar, encoding, trailing data, nesting), `duplicateMember` naming the
    ///   member that appears twice.
    package static func parse(_ bytes: [UInt8], maxDepth: Int = 16) throws(JSONError) -> JSONValue {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(JSONError) -> JSONValue in
                var scanner = JSONScanner(raw)
                let value = try scanner.value(depth: 0, maxDepth: maxDepth)
                scanner.skipWhitespace()
                guard scanner.isAtEnd else { throw scanner.error("data after the value") }
                return value
            }
        }
        return try result.get()
    }

    /// The member `name` of an object; nil for a missing member or a value that is not an object.
    package subscript(name: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members[name]
    }

    package var string: String? {
        guard case .string(let value) = self else { return nil }
        return value
    }

    /// The number, when it is finite.
    package var number: Double? {
        guard case .number(let value) = self, value.isFinite else { return nil }
        return value
    }

    package var bool: Bool? {
        guard case .bool(let value) = self else { return nil }
        return value
    }

    package var array: [JSONValue]? {
        guard case .array(let values) = self else { return nil }
        return values
    }

    package var object: [String: JSONValue]? {
        guard case .object(let members) = self else { return nil }
        return members
    }
}

extension JSONScanner {
    /// Parses the value at the current position into a ``JSONValue``.
    fileprivate mutating func value(depth: Int, maxDepth: Int) throws(JSONError) -> JSONValue {
        skipWhitespace()
        switch peek {
        case 0x22: return .string(string(try scanString()))
        case 0x2D, 0x30...0x39: return .number(try scanNumber().double)
        case 0x5B, 0x7B:
            guard depth < maxDepth else { throw error("nesting deeper than \(maxDepth)") }
            return peek == 0x5B
                ? try array(depth: depth, maxDepth: maxDepth) : try object(depth: depth, maxDepth: maxDepth)
        default:
            if consumeLiteral("true") { return .bool(true) }
            if consumeLiteral("false") { return .bool(false) }
            if consumeLiteral("null") { return .null }
            throw error(isAtEnd ? "unexpected end of input" : "invalid value")
        }
    }

    private mutating func array(depth: Int, maxDepth: Int) throws(JSONError) -> JSONValue {
        pos += 1  // [
        var values: [JSONValue] = []
        if consume(0x5D) { return .array(values) }
        repeat { values.append(try value(depth: depth + 1, maxDepth: maxDepth)) } while consume(0x2C)
        try expect(0x5D, "',' or ']'")
        return .array(values)
    }

    private mutating func object(depth: Int, maxDepth: Int) throws(JSONError) -> JSONValue {
        pos += 1  // {
        var members: [String: JSONValue] = [:]
        if consume(0x7D) { return .object(members) }
        repeat {
            skipWhitespace()
            let name = string(try scanString())
            try expect(0x3A, "':'")
            guard members.updateValue(try value(depth: depth + 1, maxDepth: maxDepth), forKey: name) == nil else {
                throw JSONError(.duplicateMember, member: name, "the member appears more than once")
            }
        } while consume(0x2C)
        try expect(0x7D, "',' or '}'")
        return .object(members)
    }
}
