/// A credential file (API keys, a JWKS) that cannot be used: which file, which line or key, and the rule broken.
///
/// Never the offending text itself: a line of the key file may hold a key pasted where its hash belongs.
public struct CredentialFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The file is missing, unreadable, too large, or not UTF-8.
        case unreadable
        /// The file was read but breaks its format.
        case malformed
        /// Two lines each keep the format but cannot both stand: the same key hash twice, or the patient prefixes of
        /// two tenants overlapping (``line`` and ``otherLine`` name them).
        case conflicting
    }

    public var code: Code
    /// The file's path as configured.
    public var path: String
    /// The 1-based line the problem is on (key files), when there is one.
    public var line: Int?
    /// For `conflicting`: the earlier line that ``line`` conflicts with (also named in the message).
    public var otherLine: Int?
    /// What is wrong, e.g. `tenant= is missing` or `keys[2]: an RSA key without n`.
    public var message: String

    public init(_ code: Code, path: String, line: Int? = nil, otherLine: Int? = nil, _ message: String) {
        self.code = code
        self.path = path
        self.line = line
        self.otherLine = otherLine
        self.message = message
    }

    public var description: String { "\(path)\(line.map { " line \($0)" } ?? ""): \(message)" }
}
