import Synchronization

/// A consumer-group member implementing the at-least-once recipe on librdkafka 2.0.2.
///
/// - **Threading**: a dedicated poll thread runs `rd_kafka_consumer_poll` and serves every callback (rebalance,
///   errors, statistics). Records are copied into a bounded buffer and handed out by ``events``.
/// - **Flow control**: when ``KafkaConsumerConfiguration/maxBufferedMessages`` records wait in the buffer, the
///   poll thread holds back (still polling every 100 ms, so rebalances and `max.poll.interval.ms` stay served)
///   until the app takes one; librdkafka's pre-fetch limits (`queued.max.messages.kbytes`) bound the rest. No
///   pause: librdkafka discards pre-fetched records on pause. This composes with ``pauseAll()``.
/// - **Batches and the fence**: ``nextBatch(upTo:window:idleTimeout:)`` hands out records as a ``KafkaBatch`` that
///   carries its fence; ``complete(_:)`` stores its offsets once its work is durable (in order per partition, never
///   past an ``abandon(_:)``ed batch, only in the generation the batch claimed). Nothing is stored automatically.
///   librdkafka commits stored offsets every `autoCommitIntervalMs`, on revoke and on close. (``storeOffsets(after:)``
///   remains for readers of ``events`` that store per record.)
/// - **Rebalance and generations**: see ``KafkaRebalanceEvent``. Each assignment of a partition is a new
///   generation, stamped on every record on the poll thread (``KafkaMessage/assignmentGeneration``). On revoke,
///   buffered records of the revoked partitions are dropped before the handler runs, so none reaches the app after
///   the handler returned; the consumer then waits (``KafkaConsumerConfiguration/revokeWait``) for the batches in
///   flight of those partitions to complete or be abandoned, ends the generation and commits. Records the app still
///   holds keep their old generation: their offsets can no longer be stored once the revoke ended (or at once when
///   the partitions were lost).
public final class KafkaConsumer: Sendable {
    let client: RDKafkaClient
    let context: RDKafkaConsumerContext
    let poller: RDKafkaPollThread

    /// Creates the consumer and starts its poll thread. Call ``subscribe(topics:)`` or ``assign(_:)`` next.
    /// - Parameters:
    ///   - pausedWhile: the app's pause condition (e.g. "the store is failing"), read by the poll thread before
    ///     every poll (quick, thread-safe, non-blocking): while it holds, fetching of every assigned partition is
    ///     paused, as by ``pauseAll()``; records already buffered are still handed out.
    ///   - rebalanceHandler: called synchronously on the poll thread (or the close thread during ``close(timeout:)``)
    ///     for every assignment change, to observe it (a revoke's wait for batches in flight is the consumer's and
    ///     follows the handler). It must be quick; it may call ``pauseAll()``, ``resumeAll()``, but must not call
    ///     ``commit()``, ``close(timeout:)``, ``complete(_:)`` or wait for ``events``, ``next(upTo:timeout:)`` or
    ///     ``nextBatch(upTo:window:idleTimeout:)``.
    ///   - logHandler: librdkafka log lines (e.g. the `OFFSET` reset warning), called on librdkafka's internal
    ///     threads; must be quick and thread-safe. `nil` writes them to stderr in librdkafka's
    ///     format, `CONFWARN` values removed.
    /// - Throws: ``KafkaError`` of kind ``KafkaError/Kind/configuration`` naming the property.
    public init(
        configuration: KafkaConsumerConfiguration,
        pausedWhile: (@Sendable () -> Bool)? = nil,
        rebalanceHandler: @escaping @Sendable (KafkaRebalanceEvent) -> Void = { _ in },
        logHandler: (@Sendable (KafkaLogEntry) -> Void)? = nil
    ) throws(KafkaError) {
        let context = RDKafkaConsumerContext(
            maxBufferedMessages: configuration.maxBufferedMessages, rebalanceHandler: rebalanceHandler,
            logHandler: logHandler, startTimestampMs: configuration.startTimestampMs, pausedWhile: pausedWhile,
            revokeWait: configuration.revokeWait)
        let properties = try configuration.properties()
        let client = try RDKafkaClient(kind: .consumer, properties: properties, context: context) { conf in
            RDKafkaClient.installConsumerCallbacks(on: conf)
        }
        client.routeCallbacksToConsumerPoll()  // serve every callback from the poll thread's consumer poll
        self.client = client
        self.context = context
        self.poller = RDKafkaPollThread(name: "kafka-consumer-poll") { context.pollOnce(client) }
        let strategy = properties.last { $0.key == "partition.assignment.strategy" }?.value ?? ""
        context.closeState.withLock { $0 = KafkaConsumerCloseState(assignmentStrategy: strategy) }
    }

    deinit {
        // Not closed: stop polling; RDKafkaClient's deinit destroys the handle (rd_kafka_destroy closes the consumer
        // itself, without the app's final commit) unless that would abort (see KafkaConsumerCloseState).
        _ = context.state.withLock { $0.finish() }?.resume(returning: [])
        context.wakePollThread()
        poller.stop(timeout: .seconds(5))
        if context.closeState.withLock({ $0.finish() }) == .abandon { client.abandon() }
    }

    // MARK: - Subscription

    /// Joins the group and subscribes to `topics` (assignment arrives through the rebalance handler).
    public func subscribe(topics: [String]) throws(KafkaError) {
        try client.checkOpen("subscribe")
        try client.subscribe(topics)
        context.closeState.withLock { $0.didSubscribe() }
    }

    /// Manual assignment without group membership (one-off reads): each entry's offset is where to start
    /// (an offset or ``KafkaTopicPartitionOffset/beginning`` / `end` / `stored`). No rebalance events follow.
    public func assign(_ partitions: [KafkaTopicPartitionOffset]) throws(KafkaError) {
        try client.checkOpen("assign")
        _ = context.state.withLock { $0.assign(partitions.map(\.topicPartition)) }
        let context = self.context
        try client.assign(partitions) { context.state.withLock { $0.fetchPaused } }
    }

    // MARK: - Events and pausing

    /// Records and events from the poll thread, in order per partition. Single consumer: iterate it from one
    /// task. Ends after ``stopConsuming()`` or ``close(timeout:)``; cancelling the iterating task ends it too.
    public var events: KafkaConsumerEvents { KafkaConsumerEvents(context: context) }

    /// Takes up to `limit` events from the consumer's buffer (the only buffer between librdkafka and the app),
    /// waiting at most `timeout` for the first one. Single reader: call it from one task at a time (not mixed with
    /// iterating ``events``).
    public func next(upTo limit: Int, timeout: Duration) async -> KafkaConsumerNext {
        await context.take(upTo: limit, timeout: timeout)
    }

    /// App-level pause (e.g. the sink is down): stops fetching every assigned partition, including partitions
    /// assigned later, until ``resumeAll()``. Polling continues. Takes effect within one poll interval (100 ms);
    /// records already buffered are still delivered by ``events``.
    public func pauseAll() {
        context.state.withLock { $0.appPaused = true }
        context.wakePollThread()
    }

    /// Ends an app-level pause (fetching resumes unless flow control still holds it).
    public func resumeAll() {
        context.state.withLock { $0.appPaused = false }
        context.wakePollThread()
    }

    /// Stops consuming without leaving the group: fetching is paused, buffered records are dropped (they were
    /// never stored, so they will be redelivered), and ``events`` ends. Polling continues so rebalances and
    /// heartbeats are served until ``close(timeout:)``. Use it to drain in-flight work before closing.
    public func stopConsuming() {
        context.state.withLock { $0.finish() }?.resume(returning: [])
        context.wakePollThread()
    }
}
