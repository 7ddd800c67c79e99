/// One option an executable accepts, declared once: its names, whether it takes a value, its environment twin, its
/// help, the type and bounds of its value, its default and whether it is a secret.
///
/// The parser, the help text, the typed accessors (``ParsedCommandLine/declaredInteger(_:)``, …) and the option table
/// (``CommandLineParser/optionTableJSON(program:)``, which the Helm chart's options reference is generated from) all
/// read this one declaration.
///
/// The first name is the option's key in ``ParsedCommandLine`` (e.g. `--batch-size`); further names are aliases
/// (`-b`). A short name (`-X`) also takes its value attached (`-Xkey=value`); a long one as `--name=value`.
public struct CommandLineOption: Sendable {
    /// What follows the option on the command line.
    public enum Kind: Sendable, Equatable {
        /// A boolean switch: `--until-caught-up`; `--flag=value` is a usage error.
        case flag
        /// An option with a value, shown in the help as `--name ARGUMENT`.
        case value(argument: String)
    }

    /// `--name` first, then aliases such as `-b`.
    public var names: [String]
    /// A switch, or an option with a value.
    public var kind: Kind
    /// The environment variable read when the option is absent from the command line (e.g. `DVP_BATCH_MS`).
    public var environment: String?
    /// Whether every occurrence is kept (`-X a=1 -X b=2`); otherwise the last one counts.
    public var isRepeatable: Bool
    /// The help text; further lines are indented under the first.
    public var help: String
    /// What the value must be: a string, an integer or a number within bounds, one of a list, or a switch.
    public var valueType: ValueType
    /// The value the program uses when the option is absent, as it would be typed; nil when there is none or it is
    /// decided at run time (the help says how).
    public var defaultValue: String?
    /// Whether the value is a secret (a key, a password, a token): never printed, in an error or the option table.
    public var isSecret = false
    /// Whether `--help` leaves the option out (it stays in the option table).
    public var isHidden = false

    /// The key of the option in a ``ParsedCommandLine``: its first name.
    public var name: String { names[0] }

    /// An option that takes a value.
    public static func value(
        _ name: String, _ argument: String, aliases: [String] = [], environment: String? = nil,
        repeatable: Bool = false, help: String
    ) -> CommandLineOption {
        CommandLineOption(
            names: [name] + aliases, kind: .value(argument: argument), environment: environment,
            isRepeatable: repeatable, help: help, valueType: .string)
    }

    /// A boolean switch; its environment twin counts as set when it is `1`, `true` or `yes`.
    public static func flag(
        _ name: String, aliases: [String] = [], environment: String? = nil, help: String
    ) -> CommandLineOption {
        CommandLineOption(
            names: [name] + aliases, kind: .flag, environment: environment, isRepeatable: false, help: help,
            valueType: .boolean, defaultValue: "false")
    }

    /// `--help` / `-h`, which every command line understands.
    public static let help = CommandLineOption.flag("--help", aliases: ["-h"], help: "show this text")

    /// `DVP_` + a long name upper-cased with dashes as underscores: `--batch-ms` → `DVP_BATCH_MS`.
    public static func environmentTwin(of name: String, prefix: String = "DVP_") -> String {
        prefix + String(name.drop(while: { $0 == "-" }).uppercased().map { $0 == "-" ? "_" : $0 })
    }

    /// The option with the conventional environment twin of its name (see ``environmentTwin(of:prefix:)``).
    public func withEnvironmentTwin(prefix: String = "DVP_") -> CommandLineOption {
        var option = self
        option.environment = Self.environmentTwin(of: name, prefix: prefix)
        return option
    }
}
