import CKafka

/// Builds an `rd_kafka_conf_t` from ordered properties, turning every `rd_kafka_conf_set` failure into a
/// configuration error that names the property, never its value (a value may be a password or a key).
enum RDKafkaConfig {
    /// What stands in an error or log text for a property value that was removed.
    static let removedValue = "(value removed)"

    /// Returns a new `rd_kafka_conf_t *` owned by the caller (pass it to `rd_kafka_new` or destroy it).
    static func make(_ properties: [(key: String, value: String)]) throws(KafkaError) -> OpaquePointer {
        let conf = rd_kafka_conf_new()!
        var errstr = [CChar](repeating: 0, count: 512)
        for (key, value) in properties {
            let result = rd_kafka_conf_set(conf, key, value, &errstr, errstr.count)
            guard result == RD_KAFKA_CONF_OK else {
                rd_kafka_conf_destroy(conf)
                // librdkafka's text quotes the rejected value ("Invalid value \"…\" for …"): removed.
                let reason = removingValues(String(cBuffer: errstr), of: [(key, value)])
                let what = result == RD_KAFKA_CONF_UNKNOWN ? "unknown property" : "invalid value"
                throw .configuration(property: key, "\(what) for '\(key)': \(reason)")
            }
        }
        return conf
    }

    /// Best effort: the first configured property named in an `rd_kafka_new` error text.
    static func propertyNamed(in message: String, among properties: [(key: String, value: String)]) -> String? {
        properties.map(\.key).filter { message.contains($0) }.max { $0.count < $1.count }
    }

    /// `text` with every occurrence of the given properties' values replaced by ``removedValue`` (longest first, so
    /// a value inside another is not left half-removed).
    static func removingValues(_ text: String, of properties: [(key: String, value: String)]) -> String {
        var out = text
        for value in properties.map(\.value).filter({ !$0.isEmpty }).sorted(by: { $0.count > $1.count }) {
            out = out.replacing(value, with: removedValue)
        }
        return out
    }

    /// An `rd_kafka_new` error text safe to show: the values of secret-looking properties (passwords, secrets,
    /// keys, tokens, JAAS and OAUTHBEARER configs) and every backquoted value removed.
    static func creationError(_ text: String, properties: [(key: String, value: String)]) -> String {
        let secret = ["password", "secret", "key", "jaas", "token", "oauthbearer.config", "pem"]
        let sensitive = properties.filter { property in secret.contains { property.key.contains($0) } }
        return removingQuotedValues(removingValues(text, of: sensitive))
    }

    /// `text` (a librdkafka `CONFWARN` log line) with every backquoted word that is not a librdkafka property
    /// name replaced by ``removedValue``: such lines quote values (``Configuration property `sasl.mechanism` set to
    /// `…` but …``), and a value may be a secret.
    static func removingQuotedValues(_ text: String) -> String {
        let parts = text.split(separator: "`", omittingEmptySubsequences: false)
        guard parts.count >= 3 else { return text }
        let conf = rd_kafka_conf_new()!
        defer { rd_kafka_conf_destroy(conf) }
        var out = ""
        for (index, part) in parts.enumerated() {
            if index > 0 { out += "`" }
            // Odd parts are inside backquotes (an unclosed last one counts too: removed).
            let quoted = index % 2 == 1
            out += quoted && !isPropertyName(String(part), conf) ? removedValue : String(part)
        }
        return out
    }

    private static func isPropertyName(_ word: String, _ conf: OpaquePointer) -> Bool {
        var size = 0
        return !word.isEmpty && rd_kafka_conf_get(conf, word, nil, &size) != RD_KAFKA_CONF_UNKNOWN
    }
}
