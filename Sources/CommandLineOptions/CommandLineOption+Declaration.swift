extension CommandLineOption {
    /// What an option's value must be. The parser's typed accessors enforce it, and the option table states it (as
    /// JSON Schema's `type`, `enum`, `minimum`, `maximum` and `exclusiveMinimum`).
    public enum ValueType: Sendable, Equatable {
        /// Any text (a name, a path, a URI, a list).
        case string
        /// An integer within `range`.
        case integer(ClosedRange<Int>)
        /// A number within `range`; with `exclusiveMinimum` the lower bound itself is refused.
        case number(ClosedRange<Double>, exclusiveMinimum: Bool = false)
        /// One of `choices`, spelled exactly.
        case choice([String])
        /// A switch: given or not (its environment twin `1`, `true` or `yes`).
        case boolean
    }

    /// The option with the type of its value and its default (as it would be typed).
    ///
    /// ```swift
    /// .value("--batch-size", "N", help: "records per batch (default 1000)")
    ///     .typed(.integer(1...100_000), default: "1000")
    /// ```
    public func typed(_ type: ValueType, default defaultValue: String? = nil) -> CommandLineOption {
        var option = self
        option.valueType = type
        option.defaultValue = defaultValue
        return option
    }

    /// The option, one of the cases of `type` (its raw values, in declaration order).
    public func choice<Choice: CaseIterable & RawRepresentable>(
        of type: Choice.Type, default defaultValue: Choice? = nil
    ) -> CommandLineOption where Choice.RawValue == String {
        typed(.choice(type.allCases.map(\.rawValue)), default: defaultValue?.rawValue)
    }

    /// The option, marked as a secret: its value (and default) is never printed.
    public func secret() -> CommandLineOption {
        var option = self
        option.isSecret = true
        option.defaultValue = nil
        return option
    }

    /// The option, left out of `--help`.
    public func hidden() -> CommandLineOption {
        var option = self
        option.isHidden = true
        return option
    }

    /// Whether `text` is a value of the option's type.
    public func accepts(_ text: String) -> Bool {
        switch valueType {
        case .string: true
        case .integer(let range): Int(text).map(range.contains) ?? false
        case .number(let range, let exclusive):
            Double(text).map { range.contains($0) && !(exclusive && $0 == range.lowerBound) } ?? false
        case .choice(let choices): choices.contains(text)
        case .boolean: ["1", "true", "yes"].contains(text.lowercased())
        }
    }
}
