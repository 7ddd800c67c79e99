import CKafka

extension KafkaPersistenceStatus {
    /// From `rd_kafka_message_status()`.
    init(_ status: rd_kafka_msg_status_t) {
        switch status {
        case RD_KAFKA_MSG_STATUS_PERSISTED: self = .persisted
        case RD_KAFKA_MSG_STATUS_POSSIBLY_PERSISTED: self = .possiblyPersisted
        default: self = .notPersisted
        }
    }
}
