/// Why a gzip body was not inflated: too large once inflated, or not a well-formed gzip stream.
public struct GzipError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// The inflated bytes passed the limit; inflating stopped there (a gzip bomb costs no more than the limit).
        case tooLarge
        /// Not a gzip stream, a corrupt or truncated one, or data after its end.
        case malformed
    }

    public var code: Code
    /// What is wrong, with zlib's own text where it has one; never the data.
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "gzip \(code.rawValue): \(message)" }
}
