/// A flag, environment variable or file the gateway cannot start with; the message names the option and the rule,
/// never the value (it may be a secret). Exit status 2.
public struct IngestConfigurationError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, naming the option.
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { "configuration error: \(message)" }
}
