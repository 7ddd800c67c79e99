import Foundation
import TestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Reads a running worker's HTTP endpoints (port taken from its `http listening` log line).
struct WorkerProbe {
    let port: Int

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
    }

    /// Status code and body of `GET path`, or nil when the worker does not answer.
    func get(_ path: String) async -> (status: Int, body: String)? {
        guard let url = URL(string: "http://127.0.0.1:\(port)\(path)") else { return nil }
        var request = URLRequest(url: url)
        request.timeoutInterval = 3
        guard let (data, response) = try? await URLSession.shared.data(for: request),
            let http = response as? HTTPURLResponse
        else { return nil }
        return (http.statusCode, String(decoding: data, as: UTF8.self))
    }

    /// The value of one Prometheus series (exact text before the value, e.g. `dvp_records_consumed_total`).
    func metric(_ series: String) async -> Double? {
        guard let (_, body) = await get("/metrics") else { return nil }
        for line in body.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.split(separator: " ").last ?? "")
        }
        return nil
    }
}
