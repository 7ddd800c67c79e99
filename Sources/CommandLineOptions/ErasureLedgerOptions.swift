/// The options of the executables that check a store's erasure ledger beside the workers (`dlq redrive`, `ingest`):
/// the store's location and the key its persons are hashed with, taken as the worker takes them (the same flags,
/// environment variables and secret files), so one Secret configures all of them.
public enum ErasureLedgerOptions {
    /// `--id-key-file PATH` (`DVP_ID_KEY_FILE`), or `DVP_ID_KEY` with the key itself: the worker's id key.
    public static let idKeyFile = CommandLineOption.value(
        "--id-key-file", "PATH", environment: "DVP_ID_KEY_FILE",
        help: """
            the workers' secret id key (or DVP_ID_KEY with the key itself): the erasure
            ledger names persons by an HMAC of their patient id under it
            """)

    /// `--erasure-key-file PATH` (`DVP_ERASURE_KEY_FILE`): a separate key for the ledger's pseudonyms.
    public static let erasureKeyFile = CommandLineOption.value(
        "--erasure-key-file", "PATH", environment: "DVP_ERASURE_KEY_FILE",
        help: "the erasure ledger's own key, when the workers were given one (wins over the id key)")

    /// The store options named `option` and `option`-file, e.g. `--store` / `--store-file` (`DVP_STORE`,
    /// `DVP_STORE_FILE`) as the worker's, or `--erasure-store` / `--erasure-store-file`.
    public static func storeOptions(_ option: String, help: String) -> [CommandLineOption] {
        [
            CommandLineOption.value(
                option, "LOCATION", environment: CommandLineOption.environmentTwin(of: option), help: help
            ).secret(),
            CommandLineOption.value(
                option + "-file", "PATH", environment: CommandLineOption.environmentTwin(of: option + "-file"),
                help: "read \(option)'s LOCATION from a file's first line (e.g. a PostgreSQL URI with its password)"),
        ]
    }
}

extension ParsedCommandLine {
    /// A store location by the worker's rule: `option`, else the first line of `option`-file, else `option`'s
    /// environment twin, else the first line of the file its `-file` twin names; nil when none is given.
    /// - Throws: ``UsageError`` naming the file option when the file cannot be read or its first line is empty.
    public func storeLocationText(_ option: String) throws(UsageError) -> String? {
        let fileOption = option + "-file"
        if let location = given(option) { return location }
        if let path = given(fileOption) { return try secretLine(fileOption, path) }
        if let location = fromEnvironment(option) { return location }
        if let path = fromEnvironment(fileOption) { return try secretLine(fileOption, path) }
        return nil
    }

    /// The key an erasure ledger's persons are hashed with, as the worker and `storectl erase` take it:
    /// `--erasure-key-file`, else the id key (`--id-key-file`, else `DVP_ID_KEY`); nil when none is given.
    /// - Returns: the key's bytes and the option (or variable) it came from, for an error about it.
    /// - Throws: ``UsageError`` naming the option when its file cannot be read or is empty.
    public func erasureKeyBytes() throws(UsageError) -> (bytes: [UInt8], source: String)? {
        for option in [ErasureLedgerOptions.erasureKeyFile.name, ErasureLedgerOptions.idKeyFile.name] {
            guard let path = value(option) else { continue }
            do {
                return (try SecretFile(option: option, path: path).bytes(), option)
            } catch let error as UsageError {
                throw error
            } catch {
                throw UsageError(option: option, "\(option): cannot read '\(path)'")
            }
        }
        if let key = environment["DVP_ID_KEY"], !key.isEmpty { return (Array(key.utf8), "DVP_ID_KEY") }
        return nil
    }

    private func secretLine(_ option: String, _ path: String) throws(UsageError) -> String {
        do {
            return try SecretFile(option: option, path: path).firstLine()
        } catch let error as UsageError {
            throw error
        } catch {
            throw UsageError(option: option, "\(option): cannot read '\(path)'")
        }
    }
}
