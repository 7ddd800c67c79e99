/// The test environment is missing something (a binary, a server, the validator venv); the message says what to do.
public struct TestSetupError: Error, CustomStringConvertible, Sendable {
    public let description: String

    public init(_ description: String) { self.description = description }
}
