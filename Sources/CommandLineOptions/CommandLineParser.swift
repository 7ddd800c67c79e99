/// Parses `argv` against a list of ``CommandLineOption``s: `--name value`, `--name=value`, short options with the
/// value attached (`-Xkey=value`) or separate (`-b HOST`), boolean switches, repeatable options and positional
/// arguments. `--` ends the options; a lone `-` is positional (standard input).
///
/// Options read from the environment are resolved later by ``ParsedCommandLine``, so flags always win over their
/// environment twins.
public struct CommandLineParser: Sendable {
    /// A titled group of options, one block of the generated help.
    public struct Section: Sendable {
        /// The heading above the options in the help, if any.
        public var title: String?
        public var options: [CommandLineOption]

        /// A section titled `title` listing `options` in this order.
        public init(_ title: String? = nil, _ options: [CommandLineOption]) {
            self.title = title
            self.options = options
        }
    }

    /// What a non-repeatable option given twice means.
    public enum Repeats: Sendable {
        /// The last occurrence counts.
        case lastWins
        /// A usage error naming the option.
        case rejected
    }

    /// The options, grouped for the help.
    public var sections: [Section]
    /// Whether arguments that are not options are accepted (see ``ParsedCommandLine/positionals``).
    public var allowsPositionals: Bool
    /// What a non-repeatable option given twice means.
    public var repeats: Repeats

    /// - Parameters:
    ///   - sections: the options, grouped for the help text; `--help`/`-h` is always understood.
    ///   - allowsPositionals: whether arguments that are not options are accepted.
    ///   - repeats: what a non-repeatable option given twice means.
    public init(sections: [Section], allowsPositionals: Bool = false, repeats: Repeats = .lastWins) {
        self.sections = sections
        self.allowsPositionals = allowsPositionals
        self.repeats = repeats
    }

    /// A parser with one untitled section.
    public init(_ options: [CommandLineOption], allowsPositionals: Bool = false, repeats: Repeats = .lastWins) {
        self.init(sections: [Section(nil, options)], allowsPositionals: allowsPositionals, repeats: repeats)
    }

    /// Every option, `--help` included.
    public var options: [CommandLineOption] {
        let listed = sections.flatMap(\.options)
        return listed.contains { $0.name == CommandLineOption.help.name } ? listed : listed + [.help]
    }

    /// Parses `arguments` (without the program name).
    /// - Parameter environment: where the options' environment twins are looked up.
    /// - Throws: ``UsageError`` naming the unknown option, the missing value or the stray argument.
    public func parse(_ arguments: [String], environment: [String: String] = [:]) throws(UsageError)
        -> ParsedCommandLine
    {
        var byName: [String: CommandLineOption] = [:]
        for option in options {
            for name in option.names { byName[name] = option }
        }
        var parsed = ParsedCommandLine(options: options, environment: environment)
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || argument == "-" || !argument.hasPrefix("-") {
                guard allowsPositionals else { throw .unexpectedArgument(argument) }
                parsed.positionals.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            let (typed, attached) = Self.split(argument, known: byName)
            guard let option = byName[typed] else { throw .unknown(typed) }
            switch option.kind {
            case .flag:
                guard attached == nil else { throw .unexpectedValue(typed) }
                parsed.flags.insert(option.name)
            case .value:
                let value: String
                if let attached {
                    value = attached
                } else {
                    guard index < arguments.count else { throw .missingValue(typed) }
                    value = arguments[index]
                    index += 1
                }
                if !option.isRepeatable, parsed.values[option.name] != nil, repeats == .rejected {
                    throw .givenTwice(typed)
                }
                parsed.values[option.name, default: []].append(value)
            }
        }
        return parsed
    }

    /// `--name=value` → (`--name`, `value`); `-Xkey=value` → (`-X`, `key=value`) when `-X` is a known short option.
    private static func split(_ argument: String, known: [String: CommandLineOption]) -> (String, String?) {
        if argument.hasPrefix("--") {
            guard let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
            return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
        }
        guard argument.count > 2, known[argument] == nil else { return (argument, nil) }
        let short = String(argument.prefix(2))
        guard let option = known[short], option.kind != .flag else { return (argument, nil) }
        return (short, String(argument.dropFirst(2)))
    }
}
