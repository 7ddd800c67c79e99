import CKafka

/// Builds an `rd_kafka_conf_t` from ordered properties, turning every `rd_kafka_conf_set` failure into a
/// configuration error that names the property.
enum RDKafkaConfig {
    /// Returns a new `rd_kafka_conf_t *` owned by the caller (pass it to `rd_kafka_new` or destroy it).
    static func make(_ properties: [(key: String, value: String)]) throws(KafkaError) -> OpaquePointer {
        let conf = rd_kafka_conf_new()!
        var errstr = [CChar](repeating: 0, count: 512)
        for (key, value) in properties {
            let result = rd_kafka_conf_set(conf, key, value, &errstr, errstr.count)
            guard result == RD_KAFKA_CONF_OK else {
                rd_kafka_conf_destroy(conf)
                let reason = String(cBuffer: errstr)
                let what = result == RD_KAFKA_CONF_UNKNOWN ? "unknown property" : "invalid value '\(value)'"
                throw .configuration(property: key, "\(what) for '\(key)': \(reason)")
            }
        }
        return conf
    }

    /// Best effort: the first configured property named in an `rd_kafka_new` error text.
    static func propertyNamed(in message: String, among properties: [(key: String, value: String)]) -> String? {
        properties.map(\.key).filter { message.contains($0) }.max { $0.count < $1.count }
    }
}
