import Essentials

/// A minimal deterministic JSON writer: members in call order, no whitespace, shortest round-trip numbers.
///
/// Same calls → identical bytes, which the upsert relies on (an equal version must map to an equal resource).
///
/// It writes straight into the storage of the array it returns (``bytes(capacity:_:)``): one allocation per
/// document and no per-append uniqueness or growth checks of a `[UInt8]` (the mapper appends ~60 pieces per event).
/// Writes past the given capacity are counted, not stored, and the document is written once more with exactly the
/// room it needs — so `write` must be deterministic. Non-copyable: it points into storage it does not own.
package struct JSONWriter: ~Copyable, JSONByteSink {
    private let storage: UnsafeMutableBufferPointer<UInt8>
    /// The bytes written so far: the offset of the next one.
    package private(set) var count = 0
    private var needsComma = false

    private init(storage: UnsafeMutableBufferPointer<UInt8>) { self.storage = storage }

    /// The document `write` writes, with room for `capacity` bytes first (once more with exactly enough room when
    /// that was too little).
    package static func bytes(capacity: Int = 1024, _ write: (inout JSONWriter) -> Void) -> [UInt8] {
        var capacity = Swift.max(capacity, 16)
        var passes = 0
        while true {
            passes += 1
            precondition(passes <= 2, "JSONWriter.bytes: the write closure is not deterministic")
            var needed = 0
            let bytes = [UInt8](unsafeUninitializedCapacity: capacity) { storage, initialized in
                var writer = JSONWriter(storage: storage)
                write(&writer)
                needed = writer.count
                initialized = needed <= storage.count ? needed : 0
            }
            if bytes.count == needed { return bytes }
            capacity = needed
        }
    }

    /// ``bytes(capacity:_:)`` as a string.
    package static func string(capacity: Int = 1024, _ write: (inout JSONWriter) -> Void) -> String {
        String(decoding: bytes(capacity: capacity, write), as: UTF8.self)
    }

    // MARK: - Bytes

    package mutating func append(_ byte: UInt8) {
        if count < storage.count { storage[count] = byte }
        count += 1
    }

    package mutating func append(contentsOf bytes: UnsafeBufferPointer<UInt8>) {
        if bytes.count <= storage.count - count, let source = bytes.baseAddress {
            (storage.baseAddress! + count).initialize(from: source, count: bytes.count)
        }
        count += bytes.count
    }

    // MARK: - Structure

    package mutating func beginObject() {
        separate()
        append(0x7B)
        needsComma = false
    }

    package mutating func endObject() {
        append(0x7D)
        needsComma = true
    }

    package mutating func beginArray() {
        separate()
        append(0x5B)
        needsComma = false
    }

    package mutating func endArray() {
        append(0x5D)
        needsComma = true
    }

    /// Writes `"name":`; `name` must not need escaping (all member names here are ASCII identifiers).
    package mutating func key(_ name: StaticString) {
        separate()
        append(0x22)
        append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        append(0x22)
        append(0x3A)
        needsComma = false
    }

    /// Writes `"name":` for a member name known only at run time (escaped like a string value).
    package mutating func key(text name: String) {
        separate()
        Self.appendQuoted(name, to: &self)
        append(0x3A)
        needsComma = false
    }

    // MARK: - Values

    package mutating func value(_ text: String) {
        separate()
        Self.appendQuoted(text, to: &self)
        needsComma = true
    }

    /// Writes the string `first/second/third` (each part escaped) without joining the parts first.
    package mutating func value(path first: String, _ second: String, _ third: String) {
        separate()
        append(0x22)
        first.withUTF8Bytes { Self.appendEscaped($0, to: &self) }
        append(0x2F)
        second.withUTF8Bytes { Self.appendEscaped($0, to: &self) }
        append(0x2F)
        third.withUTF8Bytes { Self.appendEscaped($0, to: &self) }
        append(0x22)
        needsComma = true
    }

    package mutating func value(_ number: Double) {
        separate()
        JSONNumber.append(number, to: &self)
        needsComma = true
    }

    package mutating func value(_ number: Int64) {
        separate()
        append(utf8: String(number))
        needsComma = true
    }

    /// Writes a string value of at most `maxCount` bytes that `write` puts at the start of the buffer it is given,
    /// returning their count; they must need no escaping (e.g. the ASCII digits and punctuation of a date).
    package mutating func value(unescapedUpTo maxCount: Int, _ write: (UnsafeMutableBufferPointer<UInt8>) -> Int) {
        separate()
        append(0x22)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maxCount) { buffer in
            let written = write(buffer)
            append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<written]))
        }
        append(0x22)
        needsComma = true
    }

    /// Appends pre-rendered JSON that continues the document here (a `,` first when one is due): members, or the
    /// opening of a structure. `leavesOpen`: it ends with a member name (`"name":`) or an opening bracket, so no
    /// `,` comes next.
    package mutating func raw(_ json: [UInt8], leavesOpen: Bool) {
        separate()
        append(bytes: json)
        needsComma = !leavesOpen
    }

    /// Appends an already-rendered JSON value (a pre-built fragment).
    package mutating func rawValue(_ json: [UInt8]) {
        separate()
        append(bytes: json)
        needsComma = true
    }

    /// `"key":"text"`.
    package mutating func member(_ name: StaticString, _ text: String) {
        key(name)
        value(text)
    }

    private mutating func separate() {
        if needsComma { append(0x2C) }
    }

    // MARK: - Strings

    /// Appends `text` as a JSON string: escapes `"`, `\` and control characters; everything else verbatim.
    /// Runs without escapes are copied in bulk.
    package static func appendQuoted<Sink: JSONByteSink & ~Copyable>(_ text: String, to out: inout Sink) {
        out.append(0x22)
        text.withUTF8Bytes { appendEscaped($0, to: &out) }
        out.append(0x22)
    }

    private static func appendEscaped<Sink: JSONByteSink & ~Copyable>(
        _ utf8: UnsafeBufferPointer<UInt8>, to out: inout Sink
    ) {
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

    private static func appendEscape<Sink: JSONByteSink & ~Copyable>(_ b: UInt8, to out: inout Sink) {
        out.append(0x5C)
        switch b {
        case 0x22, 0x5C: out.append(b)
        case 0x0A: out.append(0x6E)
        case 0x0D: out.append(0x72)
        case 0x09: out.append(0x74)
        default:
            let hex: StaticString = "0123456789abcdef"
            out.append(0x75)
            out.append(0x30)
            out.append(0x30)
            out.append(hex.utf8Start[Int(b >> 4)])
            out.append(hex.utf8Start[Int(b & 0xF)])
        }
    }
}
