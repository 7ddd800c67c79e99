import CommandLineOptions
import DailyValueContract

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `producer schema`: prints the JSON Schema (draft 2020-12) of the DailyValue v1 events (values and retractions)
/// generated from the metric catalog, the built-in one or a deployment's (`--catalog`). The repository's
/// `schema/daily-value-v1.schema.json` is this command's output for the built-in catalog.
struct SchemaCommand {
    var catalogFile: String?
    var help = false

    static let parser = CommandLineParser(sections: [
        .init(
            "Options:",
            [
                .value(
                    "--catalog", "FILE", environment: "DVP_CATALOG",
                    help: "metric catalog overrides (the worker's --catalog file); default: the built-in catalog")
            ])
    ])

    static let help = parser.helpText(
        header: """
            Usage: producer schema [--catalog FILE]

            Prints the JSON Schema (draft 2020-12) of the DailyValue v1 events (a value, or a retraction of its
            day) for the metric catalog, for producers in other languages. Rules a schema cannot express (a day within the window, a zone that exists,
            min <= value <= max, the 64 KiB limit, …) are listed in docs/SCHEMA.md; the workers check them.
            """,
        footer: "Exit status: 0, or 2 for usage errors and an unusable catalog file.")

    /// Parses the arguments after `schema`.
    /// - Throws: ``UsageError`` naming the option.
    init(arguments: [String], environment: [String: String]) throws {
        let parsed = try Self.parser.parse(arguments, environment: environment)
        help = parsed.wantsHelp
        catalogFile = parsed.value("--catalog")
    }

    /// The schema text for the selected catalog.
    /// - Throws: ``MetricCatalogError`` naming the file, the key and the rule.
    func run() throws(MetricCatalogError) -> String {
        let catalog = try catalogFile.map { path throws(MetricCatalogError) in
            try MetricCatalog.load(overridesFrom: URL(fileURLWithPath: path))
        }
        return DailyValueSchema(catalog: catalog ?? .builtin).json()
    }
}
