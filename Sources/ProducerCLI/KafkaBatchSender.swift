import CommandLineOptions
import Producer

/// Sends records in batches, with one batch in flight while the next is being filled. A batch is sent only after
/// the previous one completed, so records keep their order per key. Rejections and delivery failures are reported
/// as `source:line: reason` on stderr as they come back.
final class KafkaBatchSender {
    /// Whether records go through the publisher's validation (`publish(lines:)`) or are sent as they are.
    enum Mode {
        case validated
        case unvalidated
    }

    private struct Pending {
        var records: [(key: [UInt8]?, value: [UInt8])] = []
        var locations: [(source: String, line: Int)] = []
    }

    private let publisher: DailyValuePublisher
    private let mode: Mode
    private let batchSize: Int
    private var pending = Pending()
    private var inFlight: (task: Task<[PublishResult], Never>, locations: [(source: String, line: Int)])?
    private(set) var tally = PublishTally()
    /// Failures beyond this many are counted but not printed one by one.
    private let maxPrintedFailures = 20
    private var printedFailures = 0

    init(publisher: DailyValuePublisher, mode: Mode, batchSize: Int) {
        self.publisher = publisher
        self.mode = mode
        self.batchSize = batchSize
    }

    /// Queues one record (`key` is ignored in validated mode: the patient id becomes the key).
    func add(key: [UInt8]?, value: [UInt8], source: String, line: Int) async {
        pending.records.append((key, value))
        pending.locations.append((source, line))
        if pending.records.count >= batchSize { await dispatch() }
    }

    /// Sends what is pending, waits for every delivery report and closes the producer.
    func finish() async -> PublishTally {
        await dispatch()
        await collect()
        await publisher.close(timeout: .seconds(30))
        if printedFailures < tally.failed {
            StandardError.print("… \(tally.failed - printedFailures) more delivery failure(s) not shown")
        }
        return tally
    }

    // MARK: - Batches

    /// Starts sending what is pending. Validation of this batch (the CPU part) runs while the previous batch is
    /// still in flight; its records are enqueued only after the previous batch completed.
    private func dispatch() async {
        guard !pending.records.isEmpty else { return await collect() }
        let batch = pending
        pending = Pending()
        pending.records.reserveCapacity(batchSize)
        pending.locations.reserveCapacity(batchSize)
        let publisher = self.publisher
        let records = batch.records
        let task: Task<[PublishResult], Never>
        switch mode {
        case .validated:
            let prepared = publisher.prepare(lines: records.map(\.value))
            await collect()
            task = Task { await publisher.send(prepared) }
        case .unvalidated:
            await collect()
            task = Task { await publisher.publishUnvalidated(records) }
        }
        inFlight = (task, batch.locations)
    }

    private func collect() async {
        guard let (task, locations) = inFlight else { return }
        inFlight = nil
        for (result, location) in zip(await task.value, locations) {
            tally.record(result)
            switch result {
            case .acknowledged: break
            case .rejected(let error): StandardError.print("\(location.source):\(location.line): \(error)")
            case .failed(let error):
                guard printedFailures < maxPrintedFailures else { continue }
                printedFailures += 1
                StandardError.print("\(location.source):\(location.line): delivery failed: \(error)")
            }
        }
    }
}
