/// A minimal deterministic JSON writer: members in call order, no whitespace, shortest round-trip numbers.
///
/// Same calls → identical bytes, which the upsert relies on (an equal version must map to an equal resource).
package struct JSONWriter {
    package private(set) var bytes: [UInt8] = []
    private var needsComma = false

    package init(capacity: Int = 1024) { bytes.reserveCapacity(capacity) }

    package var string: String { String(decoding: bytes, as: UTF8.self) }

    // MARK: - Structure

    package mutating func beginObject() {
        separate()
        bytes.append(0x7B)
        needsComma = false
    }

    package mutating func endObject() {
        bytes.append(0x7D)
        needsComma = true
    }

    package mutating func beginArray() {
        separate()
        bytes.append(0x5B)
        needsComma = false
    }

    package mutating func endArray() {
        bytes.append(0x5D)
        needsComma = true
    }

    /// Writes `"name":`; `name` must not need escaping (all member names here are ASCII identifiers).
    package mutating func key(_ name: StaticString) {
        separate()
        bytes.append(0x22)
        bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        bytes.append(0x22)
        bytes.append(0x3A)
        needsComma = false
    }

    /// Writes `"name":` for a member name known only at run time (escaped like a string value).
    package mutating func key(text name: String) {
        separate()
        Self.appendQuoted(name, to: &bytes)
        bytes.append(0x3A)
        needsComma = false
    }

    // MARK: - Values

    package mutating func value(_ text: String) {
        separate()
        Self.appendQuoted(text, to: &bytes)
        needsComma = true
    }

    package mutating func value(_ number: Double) {
        separate()
        JSONNumber.append(number, to: &bytes)
        needsComma = true
    }

    package mutating func value(_ number: Int64) {
        separate()
        bytes.append(contentsOf: String(number).utf8)
        needsComma = true
    }

    /// Writes a string value whose text `write` appends to the bytes itself, between the quotes: it must append
    /// nothing a JSON string needs escaped (e.g. ASCII digits and punctuation of a date).
    package mutating func value(unescaped write: (inout [UInt8]) -> Void) {
        separate()
        bytes.append(0x22)
        write(&bytes)
        bytes.append(0x22)
        needsComma = true
    }

    /// Appends an already-rendered JSON value (a pre-built fragment).
    package mutating func rawValue(_ json: [UInt8]) {
        separate()
        bytes.append(contentsOf: json)
        needsComma = true
    }

    /// `"key":"text"`.
    package mutating func member(_ name: StaticString, _ text: String) {
        key(name)
        value(text)
    }

    private mutating func separate() {
        if needsComma { bytes.append(0x2C) }
    }

    // MARK: - Strings

    /// Appends `text` as a JSON string: escapes `"`, `\` and control characters; everything else verbatim.
    /// Runs without escapes are copied in bulk.
    package static func appendQuoted(_ text: String, to out: inout [UInt8]) {
        out.append(0x22)
        // A native string's bytes are read in place; only a bridged one is copied first.
        if text.utf8.withContiguousStorageIfAvailable({ appendEscaped($0, to: &out) }) == nil {
            var copy = text
            copy.withUTF8 { appendEscaped($0, to: &out) }
        }
        out.append(0x22)
    }

    private static func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        var runStart = 0
        for i in 0..<utf8.count {
            let b = utf8[i]
            guard b < 0x20 || b == 0x22 || b == 0x5C else { continue }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<i]))
            appendEscape(b, to: &out)
            runStart = i + 1
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
    }

    private static func appendEscape(_ b: UInt8, to out: inout [UInt8]) {
        out.append(0x5C)
        switch b {
        case 0x22, 0x5C: out.append(b)
        case 0x0A: out.append(0x6E)
        case 0x0D: out.append(0x72)
        case 0x09: out.append(0x74)
        default:
            let hex: StaticString = "0123456789abcdef"
            out.append(contentsOf: [0x75, 0x30, 0x30, hex.utf8Start[Int(b >> 4)], hex.utf8Start[Int(b & 0xF)]])
        }
    }
}
