import JSON

/// A JSON value whose object members keep their insertion order, for documents people read (the published JSON
/// Schema). ``pretty()`` renders it deterministically: same value, same bytes.
package indirect enum SchemaNode: Sendable {
    case object([(String, SchemaNode)])
    case array([SchemaNode])
    case string(String)
    case number(Double)
    case integer(Int64)
    case bool(Bool)
    case null

    /// Two-space indented JSON ending in a newline; short arrays of scalars stay on one line.
    package func pretty() -> String {
        var out: [UInt8] = []
        write(to: &out, indent: 0)
        out.append(0x0A)
        return String(decoding: out, as: UTF8.self)
    }

    private var isScalar: Bool {
        switch self {
        case .object, .array: false
        default: true
        }
    }

    private func write(to out: inout [UInt8], indent: Int) {
        switch self {
        case .string(let text): JSONWriter.appendQuoted(text, to: &out)
        case .number(let value): JSONNumber.append(value, to: &out)
        case .integer(let value): out.append(contentsOf: String(value).utf8)
        case .bool(let value): out.append(contentsOf: (value ? "true" : "false").utf8)
        case .null: out.append(contentsOf: "null".utf8)
        case .array(let items) where items.allSatisfy(\.isScalar) && Self.inline(items).count <= 80:
            out.append(contentsOf: Self.inline(items))
        case .array(let items):
            out.append(0x5B)
            for (i, item) in items.enumerated() {
                Self.newline(&out, indent + 1, comma: i > 0)
                item.write(to: &out, indent: indent + 1)
            }
            Self.newline(&out, indent, comma: false)
            out.append(0x5D)
        case .object(let members):
            out.append(0x7B)
            guard !members.isEmpty else { return out.append(0x7D) }
            for (i, (name, value)) in members.enumerated() {
                Self.newline(&out, indent + 1, comma: i > 0)
                JSONWriter.appendQuoted(name, to: &out)
                out.append(contentsOf: [0x3A, 0x20])
                value.write(to: &out, indent: indent + 1)
            }
            Self.newline(&out, indent, comma: false)
            out.append(0x7D)
        }
    }

    /// `[a, b, c]` on one line.
    private static func inline(_ items: [SchemaNode]) -> [UInt8] {
        var out: [UInt8] = [0x5B]
        for (i, item) in items.enumerated() {
            if i > 0 { out.append(contentsOf: [0x2C, 0x20]) }
            item.write(to: &out, indent: 0)
        }
        out.append(0x5D)
        return out
    }

    private static func newline(_ out: inout [UInt8], _ indent: Int, comma: Bool) {
        if comma { out.append(0x2C) }
        out.append(0x0A)
        out.append(contentsOf: repeatElement(0x20, count: indent * 2))
    }
}

extension SchemaNode: ExpressibleByStringInterpolation, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral,
    ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral
{
    package init(stringLiteral value: String) { self = .string(value) }
    package init(stringInterpolation: DefaultStringInterpolation) {
        self = .string(String(stringInterpolation: stringInterpolation))
    }
    package init(arrayLiteral elements: SchemaNode...) { self = .array(elements) }
    /// An object with the members in the order written.
    package init(dictionaryLiteral elements: (String, SchemaNode)...) { self = .object(elements) }
    package init(integerLiteral value: Int64) { self = .integer(value) }
    package init(booleanLiteral value: Bool) { self = .bool(value) }
}
