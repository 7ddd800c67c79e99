import Foundation
import Observability
import TestSupport
import WorkerCore

/// A worker process of a scenario with its HTTP probe and the last `dvp_records_consumed_total` seen, so records
/// consumed by a worker that is later killed are still counted.
final class ScenarioWorker: @unchecked Sendable {
    let process: ChildProcess
    let probe: WorkerProbe
    private let lock = NSLock()
    private var lastConsumed: Int64 = 0
    private var killedOnPurpose = false

    init(_ process: ChildProcess) async throws {
        self.process = process
        probe = try await WorkerProbe(process)
    }

    var name: String { process.name }

    /// The scenario sends SIGKILL itself (kill -9 faults): that death is expected, any other signal is not.
    func markKilledOnPurpose() { lock.withLock { killedOnPurpose = true } }

    /// The shell-style status if the worker ended by a signal the scenario did not send (134 = SIGABRT, …).
    var unexpectedSignal: Int32? {
        guard let status = process.exitStatus, status > 128 else { return nil }
        return status == 128 + SIGKILL && lock.withLock({ killedOnPurpose }) ? nil : status
    }

    /// Scrapes the consumed counter (no-op when the worker does not answer).
    func refresh() async {
        guard process.isRunning, let value = await probe.metric(.recordsConsumed) else { return }
        lock.withLock { lastConsumed = max(lastConsumed, Int64(value)) }
    }

    /// Records this worker consumed: from its final "worker stopped" log line, else the last scrape.
    var consumed: Int64 {
        let logged = process.stderr.split(separator: "\n").last { $0.contains("\"worker stopped\"") }
            .flatMap { line in line.range(of: "\"consumed\":").flatMap { Int64(line[$0.upperBound...].prefix { $0.isNumber }) } }
        return lock.withLock { max(lastConsumed, logged ?? 0) }
    }

    /// An unlabelled counter's value now, 0 when absent.
    func metric(_ counter: Metrics.Counter) async -> Double { await probe.metric(counter) ?? 0 }

    /// An unlabelled gauge's value now, 0 when absent.
    func metric(_ gauge: Metrics.Gauge) async -> Double { await probe.metric(gauge) ?? 0 }

    /// One series of a one-label counter now, 0 when absent.
    func metric(_ counter: Metrics.LabelledCounter, label: String) async -> Double {
        await probe.metric(counter, label: label) ?? 0
    }

    /// A histogram's observation count now, 0 when absent.
    func observations(_ histogram: Metrics.Histogram) async -> Double { await probe.observations(histogram) ?? 0 }

    /// Waits until the worker consumed at least `count` records in total.
    func waitForConsumed(atLeast count: Double, timeout: Duration = .seconds(60)) async -> Bool {
        await eventually(timeout: timeout) { await self.metric(.recordsConsumed) >= count }
    }
}
