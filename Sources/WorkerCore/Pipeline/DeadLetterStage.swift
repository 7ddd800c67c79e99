import Kafka
import Observability

/// The dead-letter stage: sends a batch's dead-letter records and waits for every delivery report, retrying with
/// backoff while the dead-letter topic fails (readiness false, which pauses fetching) — every failure but a fatal
/// producer error, which no retry cures.
///
/// A record refused for itself — too large, corrupt, a timestamp or a missing key the topic does not accept — is
/// never retried as it is: it is sent again at once in its minimal form (``DeadLetterRecord/minimal()``), so one
/// hostile record cannot hold a partition.
struct DeadLetterStage: Sendable {
    /// Why an attempt failed: the last delivery error and how many records failed.
    struct Failure: Error, CustomStringConvertible {
        var error: KafkaError
        var records: Int
        var isRetriable: Bool { !error.isFatal }
        var description: String { "\(records) dead letter(s) not delivered: \(error)" }
    }

    let producer: KafkaProducer
    let health: WorkerHealth
    let metrics: Metrics
    let logger: Logger

    /// Sends `records` and waits for every delivery report.
    func deliver(_ records: [DeadLetterRecord], abandoned: @Sendable () -> Bool) async -> RetryLoop.Ending<Failure> {
        var remaining = records
        guard !remaining.isEmpty else { return .done }
        let ending = await RetryLoop(logger: logger).run(
            "dead-letter delivery failed", isRetriable: \Failure.isRetriable, abandoned: abandoned,
            failed: { _ in health.deadLetterFailed() },
            recovered: { _ in health.deadLetterRecovered() },
            attempt: {
                let (failed, lastError) = await send(remaining)
                guard !failed.isEmpty else { return nil }
                // Re-sending the failed ones may duplicate a record whose report was lost: consumers of the
                // dead-letter topic dedupe by (original topic, partition, offset), all in the headers.
                remaining = failed
                metrics.increment(.deadLetterErrors, by: Double(failed.count))
                return Failure(error: lastError ?? .state("dead-letter delivery failed"), records: failed.count)
            })
        // An abandoned retry must not hold fetching paused: the next batch's dead letters try again.
        if case .abandoned = ending { health.deadLetterRecovered() }
        if case .done = ending {
            for (name, n) in records.reduce(into: [String: Int](), { $0[$1.className, default: 0] += 1 }) {
                metrics.increment(.deadLettered, label: name, by: Double(n))
            }
        }
        return ending
    }

    /// Sends `records`; those refused for themselves go again at once in their minimal form.
    /// - Returns: the records that failed otherwise (to retry after a backoff) and the last such error.
    private func send(_ records: [DeadLetterRecord]) async -> ([DeadLetterRecord], KafkaError?) {
        var toSend = records
        var failed: [DeadLetterRecord] = []
        var lastError: KafkaError?
        while !toSend.isEmpty {
            let results = await producer.send(toSend.map(\.message))
            var shrunk: [DeadLetterRecord] = []
            for (record, result) in zip(toSend, results) {
                switch result {
                case .success:
                    for part in record.summarized {
                        metrics.increment(.deadLettersSummarized, label: part.rawValue)
                    }
                case .failure(let error) where error.code.isRecordRefused && !record.isMinimal:
                    logger.warning(
                        "a dead letter was refused for itself; sending it with its parts summarised",
                        [("error", .string(error.code.name)), ("size", .int(Int64(record.message.maxWireSize))),
                         ("partition", .int(Int64(record.original.partition))),
                         ("offset", .int(record.original.offset))])
                    shrunk.append(record.minimal())
                case .failure(let error):
                    failed.append(record)
                    lastError = error
                }
            }
            toSend = shrunk
        }
        return (failed, lastError)
    }
}
