import CommandLineOptions

// Secrets given as files rather than values (`--store-file`, `--kafka-property-file`), so a Kubernetes Secret can
// be mounted as a file instead of exposed as an environment variable. The files' contents never reach an error.

extension WorkerConfiguration {
    /// The environment prefix of `--kafka-property-file`'s twins: `DVP_XFILE_SASL_PASSWORD=PATH` → `sasl.password`.
    static let kafkaPropertyFilePrefix = "DVP_XFILE_"

    /// The store location: `--store`, else the first line of `--store-file`, else `DVP_STORE`, else the first line
    /// of `DVP_STORE_FILE`; nil when none is given (the default store).
    static func storeLocation(_ args: ParsedCommandLine) throws -> String? {
        if let store = args.given("--store") { return store }
        if let path = args.given("--store-file") {
            return try SecretFile(option: "--store-file", path: path).firstLine()
        }
        if let store = args.fromEnvironment("--store") { return store }
        if let path = args.fromEnvironment("--store-file") {
            return try SecretFile(option: "--store-file (DVP_STORE_FILE)", path: path).firstLine()
        }
        return nil
    }

    /// `properties` plus the librdkafka properties read from files: `DVP_XFILE_<PROPERTY>=PATH`, then
    /// `--kafka-property-file key=PATH` (which wins). Each value is the file without its trailing line breaks.
    /// - Throws: `WorkerError.configuration` naming the property when it is also given as a value (`-X`,
    ///   `DVP_X_*`), or when its file is missing, unreadable or empty.
    static func kafkaPropertyFiles(_ args: ParsedCommandLine, adding properties: [String: String]) throws
        -> [String: String]
    {
        var files = args.environmentProperties(prefix: kafkaPropertyFilePrefix)
        for pair in args.all("--kafka-property-file") {
            guard let eq = pair.firstIndex(of: "="), eq != pair.startIndex, pair.index(after: eq) != pair.endIndex
            else {
                throw WorkerError.configuration("--kafka-property-file: expected key=PATH")
            }
            files[String(pair[..<eq])] = String(pair[pair.index(after: eq)...])
        }
        var merged = properties
        for (key, path) in files.sorted(by: { $0.key < $1.key }) {
            guard properties[key] == nil else {
                throw WorkerError.configuration(
                    "--kafka-property-file \(key): the property is also given as a value (-X or DVP_X_*); give it once")
            }
            merged[key] = try SecretFile(option: "--kafka-property-file \(key)", path: path).text()
        }
        return merged
    }
}
