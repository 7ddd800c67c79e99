/// The options and positional arguments of one command line, with the environment twins to fall back on.
///
/// Values are looked up by an option's first name (``CommandLineOption/name``): a value given on the command line
/// wins over the option's environment variable, which wins over the caller's default.
public struct ParsedCommandLine: Sendable {
    /// Values in command-line order, by option name.
    public internal(set) var values: [String: [String]] = [:]
    /// The boolean switches given on the command line, by option name.
    public internal(set) var flags: Set<String> = []
    /// The arguments that are not options, in order.
    public internal(set) var positionals: [String] = []
    /// The environment the twins are read from.
    public let environment: [String: String]
    private let twins: [String: String]
    /// The declarations, by option name (see ``declaration(_:)``).
    let declarations: [String: CommandLineOption]

    init(options: [CommandLineOption], environment: [String: String]) {
        self.environment = environment
        var twins: [String: String] = [:]
        var declarations: [String: CommandLineOption] = [:]
        for option in options {
            twins[option.name] = option.environment
            declarations[option.name] = option
        }
        self.twins = twins
        self.declarations = declarations
    }

    /// Whether `--help` (or `-h`) was given.
    public var wantsHelp: Bool { flags.contains(CommandLineOption.help.name) }

    /// The option's last value on the command line, ignoring the environment.
    public func given(_ name: String) -> String? { values[name]?.last }

    /// The option's environment twin, when it is set and not empty.
    public func fromEnvironment(_ name: String) -> String? {
        twins[name].flatMap { environment[$0] }.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The option's last value on the command line, else its environment twin's, else nil.
    public func value(_ name: String) -> String? { given(name) ?? fromEnvironment(name) }

    /// Every value of a repeatable option on the command line, in order.
    public func all(_ name: String) -> [String] { values[name] ?? [] }

    /// Whether a switch was given, or its environment twin is `1`, `true` or `yes` (any case).
    public func isSet(_ name: String) -> Bool {
        flags.contains(name) || ["1", "true", "yes"].contains(twins[name].flatMap { environment[$0] }?.lowercased())
    }

    // MARK: - Typed values

    /// The option's value as an integer within `range`, nil when it is absent.
    /// - Throws: ``UsageError`` naming the option when the value is not an integer in `range`.
    public func integer(_ name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw .invalid(
                name, "must be an integer in \(range.lowerBound)...\(range.upperBound)" + echo(text, of: name))
        }
        return number
    }

    /// The option's value as an integer within `range`; the option must be given.
    /// - Throws: ``UsageError`` naming the option when it is missing or not an integer in `range`.
    public func requiredInteger(_ name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard let value = try integer(name, in: range) else { throw UsageError(option: name, "missing \(name)") }
        return value
    }

    /// The option's value as a number within `range`, nil when it is absent.
    /// - Throws: ``UsageError`` naming the option when the value is not a number in `range`.
    public func number(_ name: String, in range: ClosedRange<Double>) throws(UsageError) -> Double? {
        guard let text = value(name) else { return nil }
        guard let number = Double(text), range.contains(number) else {
            throw .invalid(
                name, "must be a number in \(range.lowerBound)...\(range.upperBound)" + echo(text, of: name))
        }
        return number
    }

    /// Environment variables named `prefix` + `NAME` as properties: `DVP_X_SASL_PASSWORD=…` with prefix `DVP_X_`
    /// gives `sasl.password` (lower-cased, `_` as `.`). The twins of a repeatable `-X key=value` option.
    public func environmentProperties(prefix: String) -> [String: String] {
        var properties: [String: String] = [:]
        for (name, value) in environment where name.hasPrefix(prefix) && name.count > prefix.count {
            properties[String(name.dropFirst(prefix.count).lowercased().map { $0 == "_" ? "." : $0 })] = value
        }
        return properties
    }
}
