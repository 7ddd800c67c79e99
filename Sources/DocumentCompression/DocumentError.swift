/// Why a stored document could not be read back: not one this build writes, corrupt, or compressed with a
/// dictionary this build does not ship.
public struct DocumentError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, with zstd's own text where it has one; never the document's bytes.
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { "stored document: \(message)" }
}
