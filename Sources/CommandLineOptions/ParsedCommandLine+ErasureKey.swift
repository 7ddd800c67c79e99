/// The key persons are hashed with in a store's erasure ledger, as the tools around the workers take it
/// (`storectl erase`, `dlq redrive`, `ingest`): the workers' own options and environment, so one Secret serves all.
extension ParsedCommandLine {
    /// `--id-key-file` (`DVP_ID_KEY_FILE`, or `DVP_ID_KEY` with the key itself) and `--erasure-key-file`
    /// (`DVP_ERASURE_KEY_FILE`).
    public static let erasureKeyOptions: [CommandLineOption] = [
        .value(
            "--id-key-file", "PATH", environment: "DVP_ID_KEY_FILE",
            help: "the workers' id key (or DVP_ID_KEY with the key itself): the erasure ledger's key"),
        .value(
            "--erasure-key-file", "PATH", environment: "DVP_ERASURE_KEY_FILE",
            help: "the workers' --erasure-key-file, when they have one (it replaces the id key)"),
        .flag(
            "--allow-development-key",
            help: "without a key, use the published development key (a devbroker demo's workers use it)"),
    ]

    /// The published development id key: what the worker uses against a local devbroker without a key of its own
    /// (never in production: anyone can compute its ids and pseudonyms).
    public static let developmentIDKey = Array("daily-values-pipeline development key".utf8)

    /// The bytes of the erasure ledger's key: `--erasure-key-file`, else `--id-key-file`, else `DVP_ID_KEY`, else
    /// with `--allow-development-key` the development key; nil when none is given.
    /// - Throws: ``UsageError`` when a named file cannot be read (the error names the option, never the contents).
    public func erasureKeyBytes() throws -> [UInt8]? {
        if let path = value("--erasure-key-file") {
            return try SecretFile(option: "--erasure-key-file", path: path).bytes()
        }
        if let path = value("--id-key-file") { return try SecretFile(option: "--id-key-file", path: path).bytes() }
        if let key = environment["DVP_ID_KEY"], !key.isEmpty { return Array(key.utf8) }
        return isSet("--allow-development-key") ? Self.developmentIDKey : nil
    }
}
