/// A catalog entry or override file that cannot be used, with the file, the metric key and the rule.
public struct MetricCatalogError: Error, Sendable, CustomStringConvertible {
    /// The override file, when the error came from one.
    public var file: String?
    /// The metric key at fault, when known.
    public var key: String?
    public var message: String

    public init(file: String? = nil, key: String? = nil, _ message: String) {
        self.file = file
        self.key = key
        self.message = message
    }

    public var description: String {
        var out = "metric catalog"
        if let file { out += " file \(file)" }
        if let key { out += " key '\(key)'" }
        return out + ": " + message
    }
}
