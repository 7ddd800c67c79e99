import Foundation
import ObservationUpsert

/// The arguments of one command: `--name value` options, `--help`, and positionals, parsed by hand.
struct Arguments {
    private(set) var options: [String: String] = [:]
    private(set) var positionals: [String] = []
    private(set) var wantsHelp = false

    /// Parses `arguments`, accepting only the option names in `allowed` (each takes a value).
    init(_ arguments: [String], allowed: Set<String>) throws {
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            if argument == "--help" || argument == "-h" {
                wantsHelp = true
            } else if argument.hasPrefix("--") {
                var name = String(argument.dropFirst(2))
                var value: String?
                if let equals = name.firstIndex(of: "=") {
                    value = String(name[name.index(after: equals)...])
                    name = String(name[..<equals])
                }
                guard allowed.contains(name) else { throw UsageError("unknown option --\(name)") }
                guard let given = value ?? remaining.popFirst() else {
                    throw UsageError("option --\(name) needs a value")
                }
                guard options[name] == nil else { throw UsageError("option --\(name) given twice") }
                options[name] = given
            } else {
                positionals.append(argument)
            }
        }
    }

    /// The store location from `--store`, else from the `DVP_STORE` environment variable.
    func storeLocation() throws -> StoreLocation {
        guard let text = options["store"] ?? ProcessInfo.processInfo.environment["DVP_STORE"] else {
            throw UsageError("no store given: pass --store LOCATION or set DVP_STORE (\(StoreLocation.acceptedForms))")
        }
        do {
            return try StoreLocation(parsing: text)
        } catch let error as StoreError {
            throw UsageError("--store: \(error.message)")
        }
    }

    /// A required integer option within `range`.
    func integer(_ name: String, in range: ClosedRange<Int>) throws -> Int {
        guard let text = options[name] else { throw UsageError("missing --\(name)") }
        guard let value = Int(text), range.contains(value) else {
            throw UsageError("--\(name) must be an integer in \(range.lowerBound)...\(range.upperBound), got '\(text)'")
        }
        return value
    }

    /// Fails unless exactly `count` positionals were given.
    func expectPositionals(_ count: Int, _ what: String) throws {
        guard positionals.count == count else {
            throw UsageError(
                positionals.count < count ? "missing \(what)" : "unexpected argument '\(positionals[count])'")
        }
    }
}
