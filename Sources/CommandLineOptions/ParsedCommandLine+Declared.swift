extension ParsedCommandLine {
    /// The declaration of the option named `name` (its first name), if the parser knows it.
    public func declaration(_ name: String) -> CommandLineOption? { declarations[name] }

    /// The option's value as an integer within its declared range (``CommandLineOption/ValueType/integer(_:)``),
    /// else its declared default; nil when it has neither.
    /// - Throws: ``UsageError`` naming the option when the value is not an integer in the range.
    public func declaredInteger(_ name: String) throws(UsageError) -> Int? {
        let option = declared(name)
        guard case .integer(let range) = option.valueType else {
            preconditionFailure("\(name) is not declared as an integer")
        }
        return try integer(name, in: range) ?? option.defaultValue.flatMap { Int($0) }
    }

    /// The option's value when it is one of its declared choices (``CommandLineOption/ValueType/choice(_:)``), else
    /// its declared default; nil when it has neither.
    /// - Throws: ``UsageError`` naming the option and the choices when the value is not one of them.
    public func declaredChoice(_ name: String) throws(UsageError) -> String? {
        let option = declared(name)
        guard case .choice(let choices) = option.valueType else {
            preconditionFailure("\(name) is not declared as a choice")
        }
        guard let text = value(name) else { return option.defaultValue }
        guard choices.contains(text) else {
            throw .invalid(name, "not one of \(choices.joined(separator: ", "))" + echo(text, of: name))
        }
        return text
    }

    /// `, got 'text'` for a message about a value, or nothing when the option is a secret.
    func echo(_ text: String, of name: String) -> String {
        declarations[name]?.isSecret == true ? "" : ", got '\(text)'"
    }

    private func declared(_ name: String) -> CommandLineOption {
        guard let option = declarations[name] else { preconditionFailure("\(name) is not declared") }
        return option
    }
}
