/// A mistake on the command line: an unknown option, a missing or malformed value, a stray argument.
///
/// The message names the option. Executables print it and exit with status 2 (see ``UsageError/exitStatus``).
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The option at fault as it was typed (`--batch-size`, `-X`), when there is one.
    public var option: String?
    /// What is wrong, naming the option.
    public var message: String

    /// The exit status for a usage error.
    public static let exitStatus: Int32 = 2

    /// A usage error saying `message`, about `option` when there is one.
    public init(option: String? = nil, _ message: String) {
        self.option = option
        self.message = message
    }

    public var description: String { message }

    // MARK: - The parser's errors

    static func unknown(_ option: String) -> UsageError {
        UsageError(
            option: option,
            "unknown option '\(option)' (see --help; an argument that starts with '-', e.g. a patient id, "
                + "goes after '--')")
    }

    static func missingValue(_ option: String) -> UsageError {
        UsageError(option: option, "\(option) needs a value (see --help)")
    }

    static func unexpectedValue(_ option: String) -> UsageError {
        UsageError(option: option, "\(option) takes no value")
    }

    static func givenTwice(_ option: String) -> UsageError {
        UsageError(option: option, "\(option) given twice")
    }

    static func unexpectedArgument(_ argument: String) -> UsageError {
        UsageError("unexpected argument '\(argument)' (see --help)")
    }

    /// A value that breaks the option's rule: `--batch-size: must be an integer in 1...100000, got '0'`.
    public static func invalid(_ option: String, _ rule: String) -> UsageError {
        UsageError(option: option, "\(option): \(rule)")
    }
}
