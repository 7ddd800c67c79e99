/// A store location as the tools beside the workers take it (`dlq redrive --store`, `ingest --erasure-store`): by the
/// worker's rule for `--store` and `--store-file`, so the Secret that gives the workers their store serves them too.
extension ParsedCommandLine {
    /// The options `option` and `option`-file, e.g. `--store` / `--store-file` (`DVP_STORE`, `DVP_STORE_FILE`, as
    /// the worker's) or `--erasure-store` / `--erasure-store-file`; the location is a secret (a password in a URI).
    public static func storeLocationOptions(_ option: String, help: String) -> [CommandLineOption] {
        [
            CommandLineOption.value(
                option, "LOCATION", environment: CommandLineOption.environmentTwin(of: option), help: help
            ).secret(),
            CommandLineOption.value(
                option + "-file", "PATH", environment: CommandLineOption.environmentTwin(of: option + "-file"),
                help: "read \(option)'s LOCATION from a file's first line (e.g. a PostgreSQL URI with its password)"),
        ]
    }

    /// A store location by the worker's rule: `option`, else the first line of `option`-file, else `option`'s
    /// environment twin, else the first line of the file its `-file` twin names; nil when none is given.
    /// - Throws: ``UsageError`` naming the file option when the file cannot be read or its first line is empty.
    public func storeLocationText(_ option: String) throws(UsageError) -> String? {
        let fileOption = option + "-file"
        if let location = given(option) { return location }
        if let path = given(fileOption) { return try firstLine(of: path, fileOption) }
        if let location = fromEnvironment(option) { return location }
        if let path = fromEnvironment(fileOption) {
            let twin = declaration(fileOption)?.environment.map { " (\($0))" } ?? ""
            return try firstLine(of: path, fileOption + twin)
        }
        return nil
    }

    private func firstLine(of path: String, _ option: String) throws(UsageError) -> String {
        do {
            return try SecretFile(option: option, path: path).firstLine()
        } catch let error as UsageError {
            throw error
        } catch {
            throw UsageError(option: option, "\(option): cannot read '\(path)'")
        }
    }
}
