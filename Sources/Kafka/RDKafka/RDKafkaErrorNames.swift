import CKafka

/// librdkafka's names and texts of error codes (`rd_kafka_err2name`, `rd_kafka_err2str`), and the conversions
/// between ``KafkaError/Code`` and the native `rd_kafka_resp_err_t`.
enum RDKafkaErrorNames {
    static func name(of rawValue: Int32) -> String {
        String(cString: rd_kafka_err2name(rd_kafka_resp_err_t(rawValue: rawValue)))
    }

    static func text(of rawValue: Int32) -> String {
        String(cString: rd_kafka_err2str(rd_kafka_resp_err_t(rawValue: rawValue)))
    }
}

extension KafkaError.Code {
    init(_ err: rd_kafka_resp_err_t) { self.init(rawValue: err.rawValue) }

    /// The native code, for calls into librdkafka.
    var native: rd_kafka_resp_err_t { rd_kafka_resp_err_t(rawValue: rawValue) }
}

extension KafkaError {
    /// Wraps a native code.
    init(_ err: rd_kafka_resp_err_t, _ message: String? = nil) {
        self.init(code: Code(err), message: message)
    }

    /// Consumes (destroys) an `rd_kafka_error_t`, keeping librdkafka's retriable and fatal flags.
    init(consuming error: OpaquePointer) {
        defer { rd_kafka_error_destroy(error) }
        self.init(
            code: Code(rd_kafka_error_code(error)),
            message: String(cString: rd_kafka_error_string(error)),
            isFatal: rd_kafka_error_is_fatal(error) != 0,
            isRetriable: rd_kafka_error_is_retriable(error) != 0
        )
    }
}
