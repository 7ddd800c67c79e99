import Synchronization

extension KafkaConsumer {
    // MARK: - Close

    /// Stops consuming, stops the poll thread, then `rd_kafka_consumer_close` (revokes through the rebalance
    /// handler, commits stored offsets, leaves the group) and `rd_kafka_destroy`, all under a watchdog.
    ///
    /// A cooperative-sticky consumer closed during its first group join (subscribed, never assigned) is closed but
    /// not destroyed: librdkafka 2.0.2 aborts the process in `rd_kafka_destroy` then (#4312, see
    /// `KafkaConsumerCloseState`). Its handle and threads stay until the process ends; the group was left.
    /// - Returns: ``KafkaCloseResult/timedOut`` when librdkafka did not finish within `timeout` (2.0.2 can hang
    ///   here); the process should then exit anyway. Calling it again returns ``KafkaCloseResult/closed``.
    @discardableResult
    public func close(timeout: Duration) async -> KafkaCloseResult {
        guard context.closeState.withLock({ $0.beginClose() }) else { return .closed }
        stopConsuming()
        let (client, poller, context) = (self.client, self.poller, self.context)
        let result = await RDKafkaBlocking.run("kafka-consumer-close", deadline: timeout) {
            // Callbacks run on this thread from here on: the poll thread must not serve the queue concurrently.
            guard poller.stop(timeout: timeout) else { return KafkaError.Code.timedOut }
            let code = client.closeConsumer()
            switch context.closeState.withLock({ $0.finish() }) {
            case .destroy:
                client.destroy()
            case .abandon:
                client.abandon()
                context.logHandler?(
                    KafkaLogEntry(
                        level: 5, facility: "CLOSE",
                        message: "closed during the first group join: handle left undestroyed, because librdkafka "
                            + "2.0.2 aborts destroying a cooperative-sticky consumer that was never assigned (#4312)"))
            }
            return code
        }
        guard let code = result else { return .timedOut }
        switch code {
        case .noError: return .closed
        case .timedOut: return .timedOut
        default: return .failed(KafkaError(code: code, message: "consumer close"))
        }
    }
}
