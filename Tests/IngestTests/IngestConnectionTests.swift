import Foundation
import TestSupport
import Testing

/// HTTP/1.1 keep-alive: a connection carries up to `--max-requests-per-connection` requests, each with a deadline of
/// its own (from the connection's start or the previous answer); the last answer says `Connection: close`. An idle
/// kept-alive connection is closed by the idle timeout (not counted as a cut); one dripping its next head is cut.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct IngestConnectionTests {
    /// `curl` with `count` requests (each POSTs an empty array: 400, answered at once) at `rate`: the status and
    /// whether each opened a connection, one line each.
    static func curlSession(_ stack: GatewayStack, count: Int, rate: String? = nil) async throws -> [String] {
        let urls = (0..<count).flatMap { _ in ["-o", "/dev/null", "\(stack.url)/v1/daily-values"] }
        let result = try await runCommand(
            "/usr/bin/curl",
            ["-sS"] + (rate.map { ["--rate", $0] } ?? []) + [
                "-H", "Content-Type: application/json", "--data", "[]", "-w", "%{http_code} %{num_connects}\\n",
            ] + urls)
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    /// The answers in `bytes`, read from one connection (status codes, in order).
    static func statuses(_ bytes: [UInt8]) -> [Int] {
        String(decoding: bytes, as: UTF8.self).components(separatedBy: "HTTP/1.1 ").dropFirst()
            .compactMap { Int($0.prefix(3)) }
    }

    @Test("16 requests at 2 a second on one connection: one connect, none cut though the session outlives a deadline")
    func keepAliveClientIsNotCut() async throws {
        let stack = try GatewayStack(partitions: 1)
        try await stack.startBroker()
        // Request deadline: request timeout 1 s + 5 s, counted again from each answer.
        try await stack.startGateway(["--insecure-no-auth", "--request-timeout", "1"])
        let started = ContinuousClock.now
        let lines = try await Self.curlSession(stack, count: 16, rate: "2/s")
        let elapsed = ContinuousClock.now - started
        #expect(lines == ["400 1"] + Array(repeating: "400 0", count: 15), "one connection for all 16: \(lines)")
        #expect(elapsed > .seconds(6), "the session outlived one request deadline (\(elapsed))")
        #expect(await stack.metricsLine(startingWith: "dvp_ingest_connections_cut_total{") == nil)
    }

    @Test("--max-requests-per-connection 3: the third answer says Connection: close; a pipelined fourth is not read")
    func requestCapClosesTheConnection() async throws {
        let stack = try GatewayStack(partitions: 1)
        try await stack.startBroker()
        try await stack.startGateway(["--insecure-no-auth", "--max-requests-per-connection", "3"])
        let lines = try await Self.curlSession(stack, count: 7)
        #expect(lines.map { $0.suffix(1) } == ["1", "0", "0", "1", "0", "0", "1"], "a new connection every 3: \(lines)")

        let requests = (1...4).map { "GET /r\($0) HTTP/1.1\r\nHost: t\r\n\r\n" }.joined()
        let (bytes, closed) = await onThread { [port = stack.port] () -> (bytes: [UInt8], closed: Bool) in
            guard let socket = RawSocket(host: "127.0.0.1", port: port) else { return ([], false) }
            socket.send(Array(requests.utf8))
            return socket.readUntilClosed(timeout: .seconds(5))
        }
        #expect(closed, "closed after the third answer")
        #expect(Self.statuses(bytes) == [404, 404, 404], "three answers, the fourth request not read")
        let answers = String(decoding: bytes, as: UTF8.self).lowercased().components(separatedBy: "http/1.1 ")
        #expect(answers.map { $0.contains("connection: close") } == [false, false, false, true], "only the last closes")
    }

    @Test("Two pipelined requests are both answered in order; the client's Connection: close ends the connection")
    func pipelinedRequestsAreAnswered() async throws {
        let stack = try GatewayStack(partitions: 1)
        try await stack.startBroker()
        try await stack.startGateway(["--insecure-no-auth"])
        let requests =
            "POST /v1/daily-values HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n[]"
            + "GET /second HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"
        let pipelined = await onThread { [port = stack.port] in
            rawRequest(host: "127.0.0.1", port: port, Array(requests.utf8), timeout: .seconds(5))
        }
        #expect(pipelined.closed)
        #expect(pipelined.response?.status == 400)
        let rest = String(decoding: pipelined.response?.body ?? [], as: UTF8.self)
        #expect(rest.contains("HTTP/1.1 404"), "the second is answered after the first: \(rest)")
    }

    @Test("An idle kept-alive connection is closed uncounted; one dripping its next head is cut as slow-head")
    func idleAndDrippingConnections() async throws {
        let stack = try GatewayStack(partitions: 1)
        try await stack.startBroker()
        try await stack.startGateway(["--insecure-no-auth", "--head-timeout", "2"])
        let port = stack.port
        let first = Array("GET /first HTTP/1.1\r\nHost: t\r\n\r\n".utf8)

        // Idle: answered, then nothing. The daemon's idle timeout (5 s) closes it.
        async let idle: (answered: Bool, closedAfter: Duration?) = onThread {
            guard let socket = RawSocket(host: "127.0.0.1", port: port), socket.send(first) else { return (false, nil) }
            let (bytes, closed) = socket.readUntilClosed(timeout: .milliseconds(500))
            let answered = !closed && Self.statuses(bytes) == [404]
            let started = ContinuousClock.now
            let (_, closedLater) = socket.readUntilClosed(timeout: .seconds(12))
            return (answered, closedLater ? ContinuousClock.now - started : nil)
        }
        // Dripping: answered, then the next head a byte a second: cut at the idle timeout + head timeout (7 s).
        async let dripping: (answered: Bool, cutAfter: Duration?) = onThread {
            guard let socket = RawSocket(host: "127.0.0.1", port: port), socket.send(first) else { return (false, nil) }
            let (bytes, closed) = socket.readUntilClosed(timeout: .milliseconds(500))
            let answered = !closed && Self.statuses(bytes) == [404]
            let started = ContinuousClock.now
            for byte in "GET /second HTTP/1.1\r\nHost: t\r\nX-Slow: aaaaaaaaaaaaaaaaaaaa".utf8 {
                let (_, cut) = socket.readUntilClosed(timeout: .seconds(1))
                if cut || !socket.send([byte]) { return (answered, ContinuousClock.now - started) }
            }
            return (answered, nil)
        }
        let (idleResult, drippingResult) = await (idle, dripping)
        #expect(idleResult.answered && drippingResult.answered)
        let idleClose = try #require(idleResult.closedAfter, "the idle connection stayed open 12 s")
        #expect(idleClose > .seconds(4) && idleClose < .seconds(7), "closed at the idle timeout: \(idleClose)")
        let cut = try #require(drippingResult.cutAfter, "the dripping connection was never cut")
        #expect(cut > .seconds(6) && cut < .seconds(10), "cut at idle + head timeout: \(cut)")
        #expect(
            await stack.metricsEventually(contain: #"dvp_ingest_connections_cut_total{reason="slow-head"} 1"#),
            "one cut, the dripping one; the idle close is not counted")
    }
}
