extension ParsedCommandLine {
    /// The environment prefix of librdkafka properties read from files: `DVP_XFILE_SASL_PASSWORD=PATH` sets
    /// `sasl.password` to the file's contents (a Kubernetes Secret mounted as a file instead of an env var).
    public static let kafkaPropertyFilePrefix = "DVP_XFILE_"

    /// `properties` plus the librdkafka properties read from files: `DVP_XFILE_<PROPERTY>=PATH`, then, when the tool
    /// has such an option, `option key=PATH` (which wins). Each value is the file without its trailing line breaks.
    /// - Throws: ``UsageError`` naming the property when it is also given as a value (`-X`, `DVP_X_*`), or when its
    ///   file is missing, unreadable or empty; never the file's contents.
    public func kafkaPropertyFiles(adding properties: [String: String], option: String? = nil) throws
        -> [String: String]
    {
        var files = environmentProperties(prefix: Self.kafkaPropertyFilePrefix)
        for pair in option.map({ all($0) }) ?? [] {
            guard let eq = pair.firstIndex(of: "="), eq != pair.startIndex, pair.index(after: eq) != pair.endIndex
            else {
                throw UsageError.invalid(option ?? "", "expected key=PATH")
            }
            files[String(pair[..<eq])] = String(pair[pair.index(after: eq)...])
        }
        let named = option ?? "DVP_XFILE_*"
        var merged = properties
        for (key, path) in files.sorted(by: { $0.key < $1.key }) {
            guard properties[key] == nil else {
                throw UsageError.invalid(
                    "\(named) \(key)", "the property is also given as a value (-X or DVP_X_*); give it once")
            }
            merged[key] = try SecretFile(option: "\(named) \(key)", path: path).text()
        }
        return merged
    }
}
