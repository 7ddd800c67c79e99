import DailyValueContract
import Essentials
import Kafka

/// One `dlq redrive` run: reads the dead-letter topic from its consumer group's committed offsets up to the end
/// as of the start, republishes or quarantines what the planner selects, and commits after every batch.
///
/// Safe progress: the group's offsets move past a batch only after every record the batch produced (republished
/// or quarantined) is acknowledged by the brokers (`acks=all`, idempotent producer); a crash re-reads at most the
/// last batch, whose records are then sent again (duplicates the version rule makes no-ops in the store). The
/// group is not joined (manual assignment): run one redrive per group at a time (the chart's Job does).
/// A dry run reads the same records and commits nothing.
public struct RedriveRun: Sendable {
    public struct Settings: Sendable {
        public var bootstrapServers: String
        /// librdkafka pass-through properties (`-X`), for the consumer and the producer.
        public var properties: [String: String] = [:]
        public var topic: String
        public var group: String
        public var planner: RedrivePlanner
        public var dryRun = false
        /// Stop after this many selected records (the rest waits for the next run).
        public var max: Int?
        /// At most this many republished records per second.
        public var rate: Double?
        /// Ignore the group's committed offsets and start at the beginning of the topic.
        public var fromBeginning = false
        public var batchSize = 500
        /// How long to wait for records the topic's end says exist before giving up.
        public var idleTimeout: Duration = .seconds(60)
        /// For the patients of a batch's selected dead letters, whether each person is erased or has withdrawn
        /// consent (the store's erasure ledger; nil when none is). Those dead letters are dropped
        /// (``RedriveAction/erased``). nil: no check (`dlq redrive --no-erasure-check`).
        public var refusedPersons: (@Sendable ([String]) async throws -> [Bool]?)?

        public init(bootstrapServers: String, topic: String, group: String, planner: RedrivePlanner) {
            self.bootstrapServers = bootstrapServers
            self.topic = topic
            self.group = group
            self.planner = planner
        }
    }

    public let settings: Settings
    /// Called after each batch with the figures so far (e.g. to print a progress line).
    public let progress: @Sendable (RedriveSummary) -> Void

    public init(settings: Settings, progress: @escaping @Sendable (RedriveSummary) -> Void = { _ in }) {
        self.settings = settings
        self.progress = progress
    }

    /// Runs to the end of the topic as of the start (or to `--max`).
    /// - Throws: ``KafkaError`` when the topic cannot be read, a record is not acknowledged, or a commit fails; the
    ///   error of ``Settings/refusedPersons`` (the store); nothing after the last committed batch counts as done,
    ///   and the next run starts there.
    public func run() async throws -> RedriveSummary {
        var configuration = KafkaConsumerConfiguration(
            bootstrapServers: settings.bootstrapServers, groupId: settings.group)
        configuration.clientId = "dvp-dlq-redrive"
        configuration.autoOffsetReset = .earliest
        configuration.statisticsIntervalMs = 0
        configuration.enablePartitionEOF = true
        configuration.maxBufferedMessages = max(settings.batchSize * 2, 100)
        configuration.extra = settings.properties
        let consumer = try KafkaConsumer(configuration: configuration)
        var producer: KafkaProducer?
        do {
            if !settings.dryRun {
                var producerConfiguration = KafkaProducerConfiguration(bootstrapServers: settings.bootstrapServers)
                producerConfiguration.clientId = "dvp-dlq-redrive"
                producerConfiguration.messageTimeoutMs = 60_000
                producerConfiguration.extra = settings.properties
                producer = try KafkaProducer(configuration: producerConfiguration)
            }
            let summary = try await drain(consumer, producer)
            await consumer.close(timeout: .seconds(10))
            _ = await producer?.close(timeout: .seconds(10))
            return summary
        } catch {
            await consumer.close(timeout: .seconds(10))
            _ = await producer?.close(timeout: .seconds(10))
            throw error
        }
    }

    // MARK: - The loop

    private func drain(_ consumer: KafkaConsumer, _ producer: KafkaProducer?) async throws -> RedriveSummary {
        var summary = RedriveSummary(dryRun: settings.dryRun, group: settings.group)
        var ends = try await startPositions(consumer)
        guard !ends.isEmpty else { return summary }
        var limiter = settings.rate.map { RateLimiter(eventsPerSecond: $0) }
        var idleSince = ContinuousClock.now
        while !ends.isEmpty, !summary.stoppedAtMax {
            let events: [KafkaConsumerEvent]
            switch await consumer.next(upTo: batchLimit, timeout: .seconds(1)) {
            case .finished: throw KafkaError.state("redrive: the consumer stopped before the end of \(settings.topic)")
            case .timedOut:
                if ContinuousClock.now - idleSince > settings.idleTimeout {
                    throw KafkaError.timedOut("redrive: no records from \(settings.topic) for \(settings.idleTimeout)")
                }
                continue
            case .events(let batch): events = batch
            }
            idleSince = .now
            var outgoing: [KafkaOutgoingMessage] = []
            var last: [Int32: KafkaMessage] = [:]
            for (record, action) in try await plan(events, ends: &ends) {
                if case .skip = action {
                } else if let max = settings.max, summary.selected >= max {
                    summary.stoppedAtMax = true
                    break
                }
                summary.count(action)
                switch action {
                case .skip, .erased: break
                case .republish(let message):
                    await limiter?.admit()
                    outgoing.append(message)
                case .quarantine(_, _, let message): outgoing.append(message)
                }
                last[record.partition] = record
            }
            if let producer {
                try await deliver(outgoing, with: producer)
                let rejected = consumer.storeOffsets(after: Array(last.values))
                if let error = rejected.values.first { throw error }
                try await consumer.commit()
            }
            progress(summary)
        }
        return summary
    }

    /// The records of `events` before their partition's end (which is forgotten once reached), each with its
    /// action: the planner's, or ``RedriveAction/erased`` for a selected dead letter that names a person the erasure
    /// ledger refuses, by its payload's `patient` or its key (one check per batch; a dead letter that names no one
    /// keeps the planner's).
    private func plan(_ events: [KafkaConsumerEvent], ends: inout [Int32: Int64]) async throws
        -> [(KafkaMessage, RedriveAction)]
    {
        var planned: [(KafkaMessage, RedriveAction)] = []
        for event in events {
            // The end of a partition with a gap before its high watermark (e.g. transaction markers) is seen
            // as an end-of-partition event rather than a record.
            if case .partitionEOF(_, let partition, let offset, _) = event, let end = ends[partition], offset >= end {
                ends[partition] = nil
            }
            guard case .message(let record) = event, let end = ends[record.partition], record.offset < end else {
                continue
            }
            planned.append((record, settings.planner.plan(DeadLetterView(record))))
            if record.offset + 1 >= end { ends[record.partition] = nil }
        }
        guard let refusedPersons = settings.refusedPersons else { return planned }
        // The persons a dead letter names: its payload's `patient` and its key, as the worker checks them.
        var checked: [(index: Int, persons: [String])] = []
        for (index, (record, action)) in planned.enumerated() {
            if case .skip = action { continue }
            let persons = EventPerson.candidates(payload: record.value, key: record.key)
            if !persons.isEmpty { checked.append((index, persons)) }
        }
        guard !checked.isEmpty, let mask = try await refusedPersons(checked.flatMap(\.persons)) else {
            return planned
        }
        var position = 0
        for entry in checked {
            defer { position += entry.persons.count }
            if mask[position..<position + entry.persons.count].contains(true) { planned[entry.index].1 = .erased }
        }
        return planned
    }

    private var batchLimit: Int {
        guard let rate = settings.rate else { return settings.batchSize }
        return Swift.max(1, Swift.min(settings.batchSize, Int(rate)))
    }

    /// Where each partition starts (the committed offset, else the log start) and ends (the high watermark now);
    /// assigns the partitions that have records left and returns their ends.
    private func startPositions(_ consumer: KafkaConsumer) async throws(KafkaError) -> [Int32: Int64] {
        let marks = try await consumer.queryWatermarks(topic: settings.topic, timeout: .seconds(30))
        var committed: [Int32: Int64] = [:]
        if !settings.fromBeginning {
            let partitions = marks.keys.map { KafkaTopicPartition(topic: settings.topic, partition: $0) }
            for entry in try await consumer.committed(partitions, timeout: .seconds(30)) where entry.offset >= 0 {
                committed[entry.partition] = entry.offset
            }
        }
        var ends: [Int32: Int64] = [:]
        var starts: [KafkaTopicPartitionOffset] = []
        for (partition, mark) in marks {
            let start = Swift.max(committed[partition] ?? mark.low, mark.low)
            guard start < mark.high else { continue }
            ends[partition] = mark.high
            starts.append(KafkaTopicPartitionOffset(topic: settings.topic, partition: partition, offset: start))
        }
        if !starts.isEmpty { try consumer.assign(starts) }
        return ends
    }

    /// Sends `messages` and waits for every acknowledgement.
    /// - Throws: the first delivery error (the batch is not committed, so the next run sends it again).
    private func deliver(_ messages: [KafkaOutgoingMessage], with producer: KafkaProducer) async throws(KafkaError) {
        guard !messages.isEmpty else { return }
        for result in await producer.send(messages) {
            if case .failure(let error) = result { throw error }
        }
    }
}
