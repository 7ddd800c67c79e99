import Foundation
import HTTPClient
import Observability
import TestSupport
import WorkerCore

/// Reads a running worker's HTTP endpoints (port taken from its `http listening` log line), through the project's
/// libcurl client. Not `URLSession`: swift-corelibs-foundation's traps when a request task is cancelled as it
/// completes ("Trying to access a behaviour for a task that in not in the registry"), which took the whole test
/// process down in CI while a probe's wait was being cancelled.
struct WorkerProbe {
    let port: Int
    private let client: HTTPClient

    /// Waits for the worker to log its HTTP port.
    init(_ worker: ChildProcess, timeout: Duration = .seconds(30)) async throws {
        var found: Int?
        _ = await worker.waitForStderr(timeout: timeout) { text in
            guard let line = text.split(separator: "\n").first(where: { $0.contains("\"http listening\"") }),
                let range = line.range(of: "\"port\":")
            else { return false }
            found = Int(line[range.upperBound...].prefix { $0.isNumber })
            return found != nil
        }
        guard let found else { throw TestSetupError("worker logged no http port: \(worker.stderr.suffix(1000))") }
        port = found
        var configuration = HTTPClientConfiguration()
        configuration.connectTimeout = .seconds(3)
        configuration.requestTimeout = .seconds(3)
        configuration.maxConnections = 2
        client = try HTTPClient(configuration)
    }

    /// Status code and body of `GET path`, or nil when the worker does not answer.
    func get(_ path: String) async -> (status: Int, body: String)? {
        let request = HTTPRequest(method: "GET", url: "http://127.0.0.1:\(port)\(path)", headers: [], body: nil)
        guard let response = try? await client.send(request) else { return nil }
        return (response.status, String(decoding: response.body, as: UTF8.self))
    }

    // MARK: - Metrics, read through their declarations (nil when absent or when the worker does not answer)

    /// An unlabelled counter's value.
    func metric(_ counter: Metrics.Counter) async -> Double? { await series(counter.family.name) }

    /// An unlabelled gauge's value (nil also while unset).
    func metric(_ gauge: Metrics.Gauge) async -> Double? { await series(gauge.family.name) }

    /// One series of a one-label counter.
    func metric(_ counter: Metrics.LabelledCounter, label: String) async -> Double? {
        await series(counter.seriesName(label: label))
    }

    /// A histogram's observation count (its `_count` series).
    func observations(_ histogram: Metrics.Histogram) async -> Double? {
        await series(histogram.family.name + "_count")
    }

    /// The value of one Prometheus series (exact text before the value).
    private func series(_ series: String) async -> Double? {
        guard let (_, body) = await get("/metrics") else { return nil }
        for line in body.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.split(separator: " ").last ?? "")
        }
        return nil
    }
}
