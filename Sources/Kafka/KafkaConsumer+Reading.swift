import Foundation

extension KafkaConsumer {
    /// Reads a whole topic as it is now (from each partition's log start up to its high watermark at the time of
    /// the call) with a throw-away consumer that never joins a group or commits. For tests and tools (e.g. the
    /// dead-letter reader), not for processing.
    /// - Parameters:
    ///   - extra: raw librdkafka properties (e.g. SASL/TLS) for the temporary consumer.
    /// - Returns: the records ordered by partition, then offset.
    /// - Throws: ``KafkaError/Kind/timedOut`` if the end is not reached within `timeout`.
    public static func readAll(
        topic: String,
        bootstrapServers: String,
        extra: [String: String] = [:],
        timeout: Duration = .seconds(30)
    ) async throws(KafkaError) -> [KafkaMessage] {
        var configuration = KafkaConsumerConfiguration(
            bootstrapServers: bootstrapServers, groupId: "read-all-\(UUID().uuidString)")
        configuration.statisticsIntervalMs = 0
        configuration.maxBufferedMessages = 100_000
        configuration.extra = extra
        let consumer = try KafkaConsumer(configuration: configuration)
        let started = ContinuousClock.now
        do throws(KafkaError) {
            let messages = try await consumer.readToHighWatermarks(topic: topic, deadline: started + timeout)
            await consumer.close(timeout: .seconds(10))
            return messages
        } catch {
            await consumer.close(timeout: .seconds(10))
            throw error
        }
    }

    /// Every partition's log start and end offsets (low and high watermarks) as the brokers report them now,
    /// asked on their own thread (one metadata request, then one offsets request per partition).
    /// - Throws: ``KafkaError`` when the topic's metadata or a partition's offsets cannot be read in `timeout`.
    public func queryWatermarks(topic: String, timeout: Duration) async throws(KafkaError)
        -> [Int32: (low: Int64, high: Int64)]
    {
        let count = try await partitionCount(topic: topic, timeout: timeout)
        let client = self.client
        var marks: [Int32: (low: Int64, high: Int64)] = [:]
        for partition in 0..<Int32(count) {
            let result: Result<(Int64, Int64), KafkaError> = await RDKafkaBlocking.run("kafka-watermarks") {
                do throws(KafkaError) {
                    return .success(
                        try client.queryWatermarks(
                            topic: topic, partition: partition, timeoutMs: KafkaProducer.milliseconds(timeout)))
                } catch { return .failure(error) }
            }
            let (low, high) = try result.get()
            marks[partition] = (low, high)
        }
        return marks
    }

    private func readToHighWatermarks(topic: String, deadline: ContinuousClock.Instant) async throws(KafkaError)
        -> [KafkaMessage]
    {
        var ends: [Int32: Int64] = [:]
        for (partition, marks) in try await queryWatermarks(topic: topic, timeout: deadline - .now)
        where marks.high > marks.low {
            ends[partition] = marks.high
        }
        guard !ends.isEmpty else { return [] }
        try assign(
            ends.keys.map {
                KafkaTopicPartitionOffset(topic: topic, partition: $0, offset: KafkaTopicPartitionOffset.beginning)
            })
        var messages: [KafkaMessage] = []
        var remaining = ends
        let watchdog = Task { [weak self] in
            try? await Task.sleep(until: deadline)
            self?.stopConsuming()
        }
        defer { watchdog.cancel() }
        for await event in events {
            guard case .message(let message) = event, let end = remaining[message.partition] else { continue }
            messages.append(message)
            if message.offset + 1 >= end { remaining[message.partition] = nil }
            if remaining.isEmpty { break }
        }
        guard remaining.isEmpty else {
            throw .timedOut("readAll(\(topic)): partitions \(remaining.keys.sorted()) not read to the end in time")
        }
        return messages.sorted { ($0.partition, $0.offset) < ($1.partition, $1.offset) }
    }
}
