/// JSON documents as `Any` trees (`[String: Any]`, `[Any]`, `String`, `Double`, `Bool`, ``JSONNull``), for code that
/// walks a server's answer loosely — what Foundation's `JSONSerialization` did, without Foundation (which brings ICU
/// into every binary). Parsing is the ``JSONScanner``'s strict grammar (a member name twice is refused).
extension JSONValue {
    /// The deepest nesting accepted from a server (FHIR Bundles nest resources a few levels deep).
    package static let maxServerDepth = 64

    /// The document `bytes` hold as an `Any` tree; nil when it is not JSON.
    package static func anyValue(_ bytes: [UInt8]) -> Any? {
        (try? parse(bytes, maxDepth: maxServerDepth))?.anyValue
    }

    /// The document `bytes` hold when it is a JSON object; nil otherwise.
    package static func anyObject(_ bytes: [UInt8]) -> [String: Any]? {
        anyValue(bytes) as? [String: Any]
    }

    /// This value as an `Any` tree; every number a `Double`.
    package var anyValue: Any {
        switch self {
        case .string(let text): return text
        case .number(let number): return number
        case .bool(let flag): return flag
        case .null: return JSONNull()
        case .array(let values): return values.map(\.anyValue)
        case .object(let members): return members.mapValues(\.anyValue)
        }
    }

    /// The value of an `Any` tree as ``anyValue`` makes them (integers too); nil for anything JSON cannot hold.
    package init?(any: Any) {
        switch any {
        case let text as String: self = .string(text)
        case let flag as Bool: self = .bool(flag)
        case let number as Double: self = .number(number)
        case let number as Int: self = .number(Double(number))
        case let number as Int64: self = .number(Double(number))
        case is JSONNull: self = .null
        case let values as [Any]:
            var converted: [JSONValue] = []
            for value in values {
                guard let json = JSONValue(any: value) else { return nil }
                converted.append(json)
            }
            self = .array(converted)
        case let members as [String: Any]:
            var converted: [String: JSONValue] = [:]
            for (name, value) in members {
                guard let json = JSONValue(any: value) else { return nil }
                converted[name] = json
            }
            self = .object(converted)
        default: return nil
        }
    }

    /// The value written compactly, object members in the order of their names (one text for one value).
    package func serialized() -> [UInt8] {
        JSONWriter.bytes { writer in write(to: &writer) }
    }

    private func write(to writer: inout JSONWriter) {
        switch self {
        case .string(let text): writer.value(text)
        case .number(let number): writer.value(number)
        case .bool(let flag): writer.rawValue(Array((flag ? "true" : "false").utf8))
        case .null: writer.rawValue(Array("null".utf8))
        case .array(let values):
            writer.beginArray()
            for value in values { value.write(to: &writer) }
            writer.endArray()
        case .object(let members):
            writer.beginObject()
            for name in members.keys.sorted() {
                writer.key(text: name)
                members[name]!.write(to: &writer)
            }
            writer.endObject()
        }
    }
}
