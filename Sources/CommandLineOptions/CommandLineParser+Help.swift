extension CommandLineParser {
    /// The width of the option column in the help text (after two spaces of indent).
    static let optionColumn = 26

    /// The generated help: `header`, one block per section listing its options, then `footer`.
    ///
    /// Each option is one line `  --name ARGUMENT   help`; further lines of its help are indented under the first.
    public func helpText(header: String, footer: String? = nil) -> String {
        var blocks = [header]
        for section in sections {
            let lines = section.options.filter { !$0.isHidden }.map(Self.listing)
            blocks.append(([section.title].compactMap { $0 } + lines).joined(separator: "\n"))
        }
        if let footer { blocks.append(footer) }
        return blocks.joined(separator: "\n\n")
    }

    /// The help lines of one option.
    static func listing(_ option: CommandLineOption) -> String {
        var label = option.names.sorted { $0.count < $1.count }.joined(separator: ", ")
        if case .value(let argument) = option.kind { label += " " + argument }
        let indent = String(repeating: " ", count: optionColumn + 2)
        let first =
            label.count < optionColumn
            ? label + String(repeating: " ", count: optionColumn - label.count) : label + "  "
        let help = option.help.split(separator: "\n", omittingEmptySubsequences: false)
        let rest = help.dropFirst().map { indent + $0 }
        return (["  " + first + (help.first.map(String.init) ?? "")] + rest).joined(separator: "\n")
    }
}
