extension CommandLineParser {
    /// The flag that prints the option table (``optionTableJSON(program:)``) instead of running: given alone,
    /// `worker --print-options-json`. Not in `--help`; documented in the README and the chart's README.
    public static let printOptionTableFlag = "--print-options-json"

    /// The option table as JSON, one object per option in help order (`--help` left out), for tools that must agree
    /// with the program (the Helm chart's options reference, `scripts/options-reference.py`).
    ///
    /// Each option: `name`, `aliases`, `section`, `argument` (null for a switch), `type` (`string`, `integer`,
    /// `number`, `boolean`), `enum`, `minimum` or `exclusiveMinimum`, `maximum` (when they apply: as in JSON Schema
    /// draft-07, so these keys are a schema of the option's value), `default` (typed;
    /// null when there is none), `environment`, `repeatable`, `secret`, `hidden` and `help`. A secret's default is
    /// never printed: it is always null.
    public func optionTableJSON(program: String) -> String {
        var entries: [String] = []
        for section in sections {
            for option in section.options where option.name != CommandLineOption.help.name {
                entries.append(Self.tableEntry(option, section: section.title))
            }
        }
        return "{\"program\":\(JSONText.string(program)),\"options\":[\n" + entries.joined(separator: ",\n") + "\n]}"
    }

    /// One option of the table as a JSON object on one line.
    static func tableEntry(_ option: CommandLineOption, section: String?) -> String {
        var fields: [(String, String)] = [
            ("name", JSONText.string(option.name)),
            ("aliases", JSONText.array(option.names.dropFirst().map(JSONText.string))),
            ("section", section.map(JSONText.string) ?? "null"),
        ]
        if case .value(let argument) = option.kind {
            fields.append(("argument", JSONText.string(argument)))
        } else {
            fields.append(("argument", "null"))
        }
        switch option.valueType {
        case .string:
            fields.append(("type", "\"string\""))
        case .integer(let range):
            fields += [("type", "\"integer\""), ("minimum", "\(range.lowerBound)"), ("maximum", "\(range.upperBound)")]
        case .number(let range, let exclusive):
            let low = JSONText.number(range.lowerBound)
            fields += [
                ("type", "\"number\""), (exclusive ? "exclusiveMinimum" : "minimum", low),
                ("maximum", JSONText.number(range.upperBound)),
            ]
        case .choice(let choices):
            fields += [("type", "\"string\""), ("enum", JSONText.array(choices.map(JSONText.string)))]
        case .boolean:
            fields.append(("type", "\"boolean\""))
        }
        fields += [
            ("default", option.isSecret ? "null" : JSONText.typed(option.defaultValue, as: option.valueType)),
            ("environment", option.environment.map(JSONText.string) ?? "null"),
            ("repeatable", option.isRepeatable ? "true" : "false"),
            ("secret", option.isSecret ? "true" : "false"),
            ("hidden", option.isHidden ? "true" : "false"),
            ("help", JSONText.string(option.help)),
        ]
        return "{" + fields.map { "\(JSONText.string($0.0)):\($0.1)" }.joined(separator: ",") + "}"
    }
}
