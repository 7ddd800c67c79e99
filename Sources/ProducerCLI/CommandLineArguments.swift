import Producer

/// A hand-written cursor over `argv`: `--name value`, `--name=value`, `-X key=value`, `-Xkey=value`, flags and
/// positional arguments, with errors that name the option.
struct CommandLineArguments {
    private var arguments: [String]
    private var index = 0
    /// The value attached with `=` to the option just returned by ``nextOption()``.
    private var attachedValue: String?
    private var onlyPositionalsLeft = false

    init(_ arguments: [String]) {
        self.arguments = arguments
    }

    /// One parsed element.
    enum Element: Equatable {
        case option(String)
        case positional(String)
    }

    /// The next option (`--name`, `-X`) or positional argument; `nil` at the end. `--` ends option parsing and a
    /// lone `-` is positional (stdin).
    mutating func next() -> Element? {
        attachedValue = nil
        guard index < arguments.count else { return nil }
        let argument = arguments[index]
        index += 1
        if onlyPositionalsLeft || argument == "-" || !argument.hasPrefix("-") { return .positional(argument) }
        if argument == "--" {
            onlyPositionalsLeft = true
            return next()
        }
        if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
            attachedValue = String(argument[argument.index(after: equals)...])
            return .option(String(argument[..<equals]))
        }
        if !argument.hasPrefix("--"), argument.count > 2 {
            attachedValue = String(argument.dropFirst(2))
            return .option(String(argument.prefix(2)))
        }
        return .option(argument)
    }

    /// The value of `option`: attached with `=` (or `-Xvalue`), or the next argument.
    mutating func value(for option: String) throws(ProducerConfigurationError) -> String {
        if let attachedValue {
            self.attachedValue = nil
            return attachedValue
        }
        guard index < arguments.count else {
            throw ProducerConfigurationError(option: option, rule: "needs a value")
        }
        index += 1
        return arguments[index - 1]
    }

    /// Rejects `--flag=value` for options that take no value.
    func expectNoValue(for option: String) throws(ProducerConfigurationError) {
        if attachedValue != nil { throw ProducerConfigurationError(option: option, rule: "takes no value") }
    }

    // MARK: - Typed values

    mutating func integer(for option: String, in range: ClosedRange<Int>) throws(ProducerConfigurationError) -> Int {
        let text = try value(for: option)
        guard let number = Int(text), range.contains(number) else {
            throw ProducerConfigurationError(
                option: option, rule: "must be an integer in \(range.lowerBound)...\(range.upperBound), got '\(text)'"
            )
        }
        return number
    }

    mutating func share(for option: String) throws(ProducerConfigurationError) -> Double {
        let text = try value(for: option)
        guard let number = Double(text), (0...1).contains(number) else {
            throw ProducerConfigurationError(option: option, rule: "must be a number in 0...1, got '\(text)'")
        }
        return number
    }
}
