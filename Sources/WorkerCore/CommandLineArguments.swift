/// A small flag parser: `--name value`, `--name=value`, boolean `--flag`, and repeatable `-X key=value`.
///
/// Every flag has an environment variable twin, read when the flag is absent.
struct CommandLineArguments {
    private(set) var values: [String: [String]] = [:]
    private(set) var flags: Set<String> = []

    /// Parses `arguments` (without the program name).
    /// - Throws: `WorkerError.configuration` naming the unknown or incomplete flag.
    init(_ arguments: [String], valued: Set<String>, boolean: Set<String>) throws {
        var index = 0
        while index < arguments.count {
            var argument = arguments[index]
            index += 1
            if argument == "-X" { argument = "--X" }
            guard argument.hasPrefix("--") else {
                throw WorkerError.configuration("unexpected argument '\(argument)' (see --help)")
            }
            var name = String(argument.dropFirst(2))
            var inline: String?
            if let eq = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            if boolean.contains(name) {
                guard inline == nil else { throw WorkerError.configuration("--\(name) takes no value") }
                flags.insert(name)
            } else if valued.contains(name) {
                if let inline {
                    values[name, default: []].append(inline)
                } else {
                    guard index < arguments.count else {
                        throw WorkerError.configuration("--\(name) needs a value (see --help)")
                    }
                    values[name, default: []].append(arguments[index])
                    index += 1
                }
            } else {
                throw WorkerError.configuration("unknown flag '--\(name)' (see --help)")
            }
        }
    }

    /// The flag's last value, else the environment variable's, else nil.
    func value(_ name: String, env: String, _ environment: [String: String]) -> String? {
        values[name]?.last ?? environment[env].flatMap { $0.isEmpty ? nil : $0 }
    }

    func all(_ name: String) -> [String] { values[name] ?? [] }

    func has(_ name: String, env: String, _ environment: [String: String]) -> Bool {
        flags.contains(name) || ["1", "true", "yes"].contains(environment[env]?.lowercased() ?? "")
    }
}
