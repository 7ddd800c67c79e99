import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

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
        var messages: [KafkaMessage] = []
        try await forEachRecord(
            topic: topic, bootstrapServers: bootstrapServers, extra: extra, deadline: .now + timeout
        ) { messages.append($0) }
        return messages.sorted { ($0.partition, $0.offset) < ($1.partition, $1.offset) }
    }

    /// Reads a whole topic as it is now, like ``readAll(topic:bootstrapServers:extra:timeout:)``, handing each record
    /// to `body` as it arrives (partitions interleaved, each in offset order) and keeping none: memory does not grow
    /// with the topic.
    /// - Parameter idleTimeout: how long to wait without a record before giving up (not a bound on the whole read).
    /// - Throws: ``KafkaError/Kind/timedOut`` when no record arrived for `idleTimeout` before the end.
    public static func forEachRecord(
        topic: String,
        bootstrapServers: String,
        extra: [String: String] = [:],
        idleTimeout: Duration,
        _ body: (KafkaMessage) -> Void
    ) async throws(KafkaError) {
        try await forEachRecord(
            topic: topic, bootstrapServers: bootstrapServers, extra: extra, deadline: nil, idleTimeout: idleTimeout,
            body)
    }

    private static func forEachRecord(
        topic: String, bootstrapServers: String, extra: [String: String], deadline: ContinuousClock.Instant?,
        idleTimeout: Duration = .seconds(3600), _ body: (KafkaMessage) -> Void
    ) async throws(KafkaError) {
        var configuration = KafkaConsumerConfiguration(
            bootstrapServers: bootstrapServers, groupId: "read-all-\(UUID().uuidString)")
        configuration.statisticsIntervalMs = 0
        configuration.maxBufferedMessages = 10_000
        configuration.extra = extra
        let consumer = try KafkaConsumer(configuration: configuration)
        do throws(KafkaError) {
            try await consumer.readToHighWatermarks(
                topic: topic, deadline: deadline, idleTimeout: idleTimeout, body)
            await consumer.close(timeout: .seconds(10))
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

    private func readToHighWatermarks(
        topic: String, deadline: ContinuousClock.Instant?, idleTimeout: Duration, _ body: (KafkaMessage) -> Void
    ) async throws(KafkaError) {
        let metadataTimeout = deadline.map { $0 - .now } ?? idleTimeout
        var ends: [Int32: Int64] = [:]
        for (partition, marks) in try await queryWatermarks(topic: topic, timeout: metadataTimeout)
        where marks.high > marks.low {
            ends[partition] = marks.high
        }
        guard !ends.isEmpty else { return }
        try assign(
            ends.keys.map {
                KafkaTopicPartitionOffset(topic: topic, partition: $0, offset: KafkaTopicPartitionOffset.beginning)
            })
        var remaining = ends
        let lastProgress = Mutex(ContinuousClock.now)
        // Stops at the deadline, or after `idleTimeout` without a record.
        let watchdog = Task { [weak self] in
            while !Task.isCancelled {
                let idleEnd = lastProgress.withLock { $0 } + idleTimeout
                let end = deadline.map { min($0, idleEnd) } ?? idleEnd
                if ContinuousClock.now >= end { break }
                try? await Task.sleep(until: min(end, .now + .milliseconds(500)))
            }
            if !Task.isCancelled { self?.stopConsuming() }
        }
        defer { watchdog.cancel() }
        for await event in events {
            guard case .message(let message) = event, let end = remaining[message.partition] else { continue }
            lastProgress.withLock { $0 = .now }
            body(message)
            if message.offset + 1 >= end { remaining[message.partition] = nil }
            if remaining.isEmpty { break }
        }
        guard remaining.isEmpty else {
            throw .timedOut("reading \(topic): partitions \(remaining.keys.sorted()) not read to the end in time")
        }
    }
}
