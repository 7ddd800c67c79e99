import CKafka

/// The producer calls on an ``RDKafkaClient`` of kind `.producer` besides producing (``RDKafkaClient+Produce``):
/// callbacks, polling, flushing.
extension RDKafkaClient {
    /// Installs the delivery-report and log callbacks and, when wanted, the error callback on a new conf, before
    /// the handle exists: even the lines `rd_kafka_new` logs (`CONFWARN`) go through the log callback.
    static func installProducerCallbacks(on conf: OpaquePointer, errors: Bool) {
        rd_kafka_conf_set_dr_msg_cb(conf, RDKafkaDeliveryRegistry.deliveryCallback)
        if errors { rd_kafka_conf_set_error_cb(conf, RDKafkaDeliveryRegistry.errorCallback) }
        rd_kafka_conf_set_log_cb(conf, RDKafkaDeliveryRegistry.logCallback)
    }

    /// Serves delivery reports and callbacks for up to `timeoutMs` (`rd_kafka_poll`). BLOCKING.
    func poll(timeoutMs: Int32) {
        _ = rd_kafka_poll(handle, timeoutMs)
    }

    /// Waits until every queued record was delivered or failed (`rd_kafka_flush`). BLOCKING.
    /// - Throws: the flush's error (e.g. `_TIMED_OUT`) with the number of records still outstanding.
    func flush(timeoutMs: Int32, describing timeout: Duration) throws(KafkaError) {
        let err = rd_kafka_flush(handle, timeoutMs)
        guard err == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw KafkaError(err, "\(outqueueLength) record(s) still outstanding after \(timeout)")
        }
    }

    /// The number of records queued or in flight (`rd_kafka_outq_len`); 0 once destroyed.
    var outqueueLength: Int {
        isDestroyed ? 0 : Int(rd_kafka_outq_len(handle))
    }
}
