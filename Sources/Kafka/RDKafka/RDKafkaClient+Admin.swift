import CKafka

extension RDKafkaClient {
    /// The topic's configuration entries (`retention.ms`, …) from the brokers' DescribeConfigs, on a private queue.
    /// BLOCKING (up to `timeoutMs` plus a second). Entries without a value (sensitive ones) are left out.
    /// - Throws: ``KafkaError`` for a request the brokers do not support (librdkafka's mock cluster has no
    ///   DescribeConfigs), deny or do not answer in time.
    func topicConfiguration(_ topic: String, timeoutMs: Int32) throws(KafkaError) -> [String: String] {
        guard let queue = rd_kafka_queue_new(handle) else { throw KafkaError.state("cannot create an admin queue") }
        defer { rd_kafka_queue_destroy(queue) }
        guard let resource = rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_TOPIC, topic) else {
            throw KafkaError(code: .invalidArgument)
        }
        defer { rd_kafka_ConfigResource_destroy(resource) }
        guard let options = rd_kafka_AdminOptions_new(handle, RD_KAFKA_ADMIN_OP_DESCRIBECONFIGS) else {
            throw KafkaError.state("cannot create admin options")
        }
        defer { rd_kafka_AdminOptions_destroy(options) }
        var errorText = [CChar](repeating: 0, count: 256)
        _ = rd_kafka_AdminOptions_set_request_timeout(options, timeoutMs, &errorText, errorText.count)
        var resources: [OpaquePointer?] = [resource]
        rd_kafka_DescribeConfigs(handle, &resources, 1, options, queue)
        guard let event = rd_kafka_queue_poll(queue, timeoutMs + 1000) else {
            throw KafkaError.timedOut("DescribeConfigs(\(topic)): no answer in \(timeoutMs) ms")
        }
        defer { rd_kafka_event_destroy(event) }
        let err = rd_kafka_event_error(event)
        guard err == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw KafkaError(err, rd_kafka_event_error_string(event).map { String(cString: $0) })
        }
        guard let result = rd_kafka_event_DescribeConfigs_result(event) else {
            throw KafkaError.state("DescribeConfigs(\(topic)): the answer is not a DescribeConfigs result")
        }
        var resourceCount = 0
        guard let described = rd_kafka_DescribeConfigs_result_resources(result, &resourceCount), resourceCount > 0,
            let first = described[0]
        else { throw KafkaError(code: .unknownTopicOrPartition) }
        let resourceError = rd_kafka_ConfigResource_error(first)
        guard resourceError == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw KafkaError(resourceError, rd_kafka_ConfigResource_error_string(first).map { String(cString: $0) })
        }
        var entryCount = 0
        var entries: [String: String] = [:]
        if let list = rd_kafka_ConfigResource_configs(first, &entryCount) {
            for index in 0..<entryCount {
                guard let entry = list[index], let name = rd_kafka_ConfigEntry_name(entry),
                    let value = rd_kafka_ConfigEntry_value(entry)
                else { continue }
                entries[String(cString: name)] = String(cString: value)
            }
        }
        return entries
    }
}
