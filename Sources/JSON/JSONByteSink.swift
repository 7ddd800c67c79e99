import Essentials

/// Where JSON text is appended: a growing `[UInt8]`, or a ``JSONWriter``'s storage. One escaping and one number
/// rendering serve both.
package protocol JSONByteSink: ~Copyable {
    mutating func append(_ byte: UInt8)
    mutating func append(contentsOf bytes: UnsafeBufferPointer<UInt8>)
}

extension Array: JSONByteSink where Element == UInt8 {}

extension JSONByteSink where Self: ~Copyable {
    /// Appends `text`'s UTF-8 bytes as they are.
    package mutating func append(utf8 text: String) {
        text.withUTF8Bytes { append(contentsOf: $0) }
    }

    /// Appends `bytes` as they are.
    package mutating func append(bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append(contentsOf: $0) }
    }
}
