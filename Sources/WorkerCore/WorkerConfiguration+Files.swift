import CommandLineOptions

// Secrets given as files rather than values (`--store-file`, `--kafka-property-file`), so a Kubernetes Secret can
// be mounted as a file instead of exposed as an environment variable. The files' contents never reach an error.

extension WorkerConfiguration {
    /// The store location: `--store`, else the first line of `--store-file`, else `DVP_STORE`, else the first line
    /// of `DVP_STORE_FILE`; nil when none is given (the default store).
    static func storeLocation(_ args: ParsedCommandLine) throws -> String? {
        try args.storeLocationText("--store")
    }

    /// `properties` plus the librdkafka properties read from files (`DVP_XFILE_*`, `--kafka-property-file`).
    static func kafkaPropertyFiles(_ args: ParsedCommandLine, adding properties: [String: String]) throws
        -> [String: String]
    {
        try args.kafkaPropertyFiles(adding: properties, option: "--kafka-property-file")
    }
}
