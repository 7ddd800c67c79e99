import Essentials

/// Helpers for raw librdkafka properties (the pass-through applied after the typed configuration, like
/// kcat's `-X key=value`).
public enum KafkaProperties {
    /// Parses `key=value` strings (e.g. repeated `-X` command-line options) into a property dictionary.
    /// The value may contain `=`; surrounding whitespace of the key is trimmed.
    /// - Throws: ``KafkaError`` of kind ``KafkaError/Kind/configuration`` when a string has no `=` or an empty key
    ///   (naming its position, never its text: it may hold a secret), or repeats a key (naming the key).
    public static func parse(_ pairs: [String]) throws(KafkaError) -> [String: String] {
        var result: [String: String] = [:]
        for (position, pair) in pairs.enumerated() {
            guard let equals = pair.firstIndex(of: "=") else {
                throw .configuration(property: "", "expected key=value: property \(position + 1) has no '='")
            }
            let key = pair[..<equals].trimmingWhitespace()
            let value = String(pair[pair.index(after: equals)...])
            guard !key.isEmpty else {
                throw .configuration(property: "", "expected key=value: property \(position + 1) has an empty key")
            }
            guard result[key] == nil else {
                throw .configuration(property: key, "property '\(key)' given twice")
            }
            result[key] = value
        }
        return result
    }
}
