#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension ParsedCommandLine {
    /// Where a Kafka client's bootstrap list comes from (``bootstrapServers(parsingFile:)``).
    public enum BootstrapSource<File: Sendable>: Sendable {
        /// `--brokers` or `DVP_BROKERS` as given.
        case list(String)
        /// `--brokers-file` or `DVP_BROKERS_FILE`, read and parsed.
        case file(File)
    }

    /// The one rule for `--brokers` and `--brokers-file` of every executable: `--brokers`, else `--brokers-file`,
    /// else their environment twins in the same order (a flag wins over either twin); the file is read and handed
    /// to `parse` (the Kafka target's `KafkaBootstrapFile`, which knows the format).
    /// - Parameter parse: the file's content, or nil when its text names no servers.
    /// - Throws: ``UsageError`` naming `--brokers-file` for a file that cannot be read or names no servers (the path
    ///   is named, the contents never), or `--brokers` when neither is given.
    public func bootstrapServers<File: Sendable>(
        parsingFile parse: (String) -> File?
    ) throws(UsageError) -> BootstrapSource<File> {
        func read(_ path: String) throws(UsageError) -> BootstrapSource<File> {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw UsageError(option: "--brokers-file", "--brokers-file: cannot read '\(path)'")
            }
            guard let file = parse(text) else {
                throw UsageError(option: "--brokers-file", "--brokers-file: '\(path)' holds no bootstrap list")
            }
            return .file(file)
        }
        if let brokers = given("--brokers"), !brokers.isEmpty { return .list(brokers) }
        if let path = given("--brokers-file") { return try read(path) }
        if let brokers = fromEnvironment("--brokers") { return .list(brokers) }
        if let path = fromEnvironment("--brokers-file") { return try read(path) }
        throw UsageError(option: "--brokers", "--brokers (or DVP_BROKERS, or --brokers-file) is required")
    }
}
