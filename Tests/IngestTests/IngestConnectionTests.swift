import Foundation
import TestSupport
import Testing

/// The connection deadline against the request deadline. The server answers every request with
/// `Connection: close` — one request per connection — so a connection's deadline (counted from accept: the idle
/// timeout before the head, the request timeout, time to write the answer) is its one request's deadline. A client
/// that keeps its connection alive for many quick requests gets a new connection, and a new deadline, for each; a
/// slowloris is still cut at the deadline of its one request (IngestFaultTests).
@Suite(.serialized, .timeLimit(.minutes(3)))
struct IngestConnectionTests {
    @Test("A keep-alive client's requests outlive one connection deadline: each gets its own connection, none is cut")
    func keepAliveClientIsNotCut() async throws {
        let stack = try GatewayStack()
        try await stack.startBroker()
        // Connection deadline: request timeout 1 s + 5 s.
        try await stack.startGateway(["--insecure-no-auth", "--request-timeout", "1"])
        // One curl (it keeps connections alive when it may) with 16 requests at 2 a second: past 6 s in all. Each
        // POSTs an empty array (400: no records), answered at once.
        let urls = (0..<16).flatMap { _ in ["-o", "/dev/null", "\(stack.url)/v1/daily-values"] }
        let started = ContinuousClock.now
        let result = try await runCommand(
            "/usr/bin/curl",
            [
                "-sS", "--rate", "2/s", "-H", "Content-Type: application/json", "--data", "[]", "-w",
                "%{http_code} %{num_connects}\\n",
            ] + urls)
        let elapsed = ContinuousClock.now - started
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 16)
        #expect(lines.allSatisfy { $0 == "400 1" }, "every request answered, each on a fresh connection: \(lines)")
        #expect(elapsed > .seconds(6), "the session outlived one connection deadline (\(elapsed))")

        // Two requests sent at once on one connection: the first is answered with Connection: close and the
        // connection ends; the second is never read under the first one's deadline.
        let pipelined = await onThread { [port = stack.port] in
            rawRequest(
                host: "127.0.0.1", port: port,
                Array("GET /first HTTP/1.1\r\nHost: t\r\n\r\nGET /second HTTP/1.1\r\nHost: t\r\n\r\n".utf8),
                timeout: .seconds(5))
        }
        #expect(pipelined.closed)
        #expect(pipelined.response?.status == 404)
        #expect(pipelined.response?.headers["connection"] == "close")
        #expect(
            pipelined.response.map {
                String(decoding: $0.body, as: UTF8.self).components(separatedBy: "HTTP/1.1").count
            }
                == 1, "only the first is answered")
    }
}
