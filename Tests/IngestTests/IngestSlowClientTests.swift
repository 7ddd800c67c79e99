import Foundation
import TestSupport
import Testing

/// Slow clients cannot hold the gateway: a slowloris is cut at the head timeout, a slow body at the minimum rate,
/// one tenant's requests are capped at its share, and the probes and metrics live on their own listener — while
/// another tenant's requests are served quickly throughout.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct IngestSlowClientTests {
    /// Starts `count` clients of the slow tenant, each announcing a 4 MiB body and sending 100 bytes of it every
    /// 200 ms (500 B/s); returns the answers they got (a 429 from the head) and how many were cut off unanswered.
    static func slowBodies(count: Int, port: Int, key: String) -> (answered: [Int], cut: Int) {
        let head =
            "POST /v1/daily-values HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(key)\r\n"
            + "Content-Type: application/json\r\nContent-Length: \(4 << 20)\r\n\r\n["
        let sockets = (0..<count).compactMap { _ in RawSocket(host: "127.0.0.1", port: port) }
        for socket in sockets { socket.send(Array(head.utf8)) }
        var answered: [Int] = []
        var cut = 0
        var received = Array(repeating: [UInt8](), count: sockets.count)
        var open = Array(repeating: true, count: sockets.count)
        let started = ContinuousClock.now
        while open.contains(true), ContinuousClock.now - started < .seconds(20) {
            for (index, socket) in sockets.enumerated() where open[index] {
                let (bytes, closed) = socket.readUntilClosed(timeout: .milliseconds(1))
                received[index] += bytes
                if let status = RawHTTPResponse(received[index])?.status {
                    answered.append(status)
                    open[index] = false
                } else if closed || !socket.send([UInt8](repeating: UInt8(ascii: " "), count: 100)) {
                    cut += 1
                    open[index] = false
                }
            }
            Thread.sleep(forTimeInterval: 0.2)
        }
        return (answered, cut)
    }

    @Test("1,000 slowloris connections and 8 slow-body clients of one tenant: another's p99 < 1 s, probes < 100 ms")
    func slowClientsCannotHoldTheGateway() async throws {
        let stack = try GatewayStack()
        try await stack.startBroker()
        let keys = try await TenantKeys(in: stack.directory)
        let (good, slow) = (keys.good, keys.slow)
        try await stack.startGateway([
            "--api-keys", keys.file.path, "--max-tenant-in-flight-bytes", "\(16 << 20)",
        ])
        let body = try stack.file("ten.json", TestEvents.array(try await TestEvents.lines(10, in: stack.directory)))
        let port = stack.port

        // In a process of its own: 1,000 sockets would take this one past the 1,024 descriptors Foundation's
        // Process.run can handle while tests start processes.
        let slowloris = try ChildProcess(
            try await TestPython.executable().path,
            [
                TestEnvironment.script("slowloris.py"), "127.0.0.1", "\(port)", "1000",
                "0.5", "9",
            ])
        let slowBodies = Task.detached { await onThread { Self.slowBodies(count: 8, port: port, key: slow) } }
        try await Task.sleep(for: .milliseconds(500))

        var requestSeconds: [Double] = []
        var probeSeconds: [Double] = []
        let started = ContinuousClock.now
        // At least 8 s (past the head timeout and the body-rate grace) and at least 25 requests (a p99 worth the
        // name on a loaded machine, where starting curl is slow).
        while ContinuousClock.now - started < .seconds(8) || requestSeconds.count < 25,
            ContinuousClock.now - started < .seconds(90)
        {
            let answer = try await stack.curl(
                CurlResponse.post(stack.url, file: body, headers: ["Authorization: Bearer \(good)"]))
            #expect(answer.status == 202, "\(answer.text)")
            requestSeconds.append(answer.seconds)
            let probe = try await stack.curl(["\(stack.adminURL)/readyz"])
            #expect(probe.status == 200)
            probeSeconds.append(probe.seconds)
        }
        _ = await slowloris.exited()
        let counts = slowloris.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Int($0) }
        let (open, total) = counts.count == 2 ? (counts[0], counts[1]) : (-1, -1)
        let (answered, cut) = await slowBodies.value

        let sorted = requestSeconds.sorted()
        let p99 = sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.99).rounded(.up)) - 1)]
        print(
            "IngestSlowClientTests: \(sorted.count) requests, p99 \(p99) s; probes max \(probeSeconds.max() ?? -1) s; "
                + "slowloris open at the end \(open)/\(total); slow bodies answered \(answered), cut \(cut)")
        #expect(sorted.count >= 25)
        #expect(p99 < 1, "the other tenant's p99")
        #expect((probeSeconds.max() ?? 1) < 0.1, "the probes, on their own listener")
        #expect(total == 1000)
        #expect(open == 0, "every slowloris cut at the head timeout")
        #expect(answered.allSatisfy { $0 == 429 }, "over the tenant's 16 MiB share: 429 from the head")
        #expect(answered.count == 4 && cut == 4, "4 × 4 MiB fit the tenant's share; those 4 are cut for their rate")
        let metrics = try await stack.curl(["\(stack.adminURL)/metrics"]).text
        #expect(metrics.contains(#"dvp_ingest_throttled_total{limit="tenant-in-flight-bytes"} 4"#))
        #expect(metrics.contains(#"dvp_ingest_connections_cut_total{reason="slow-body"} 4"#))
        #expect(metrics.contains(#"dvp_ingest_connections_cut_total{reason="slow-head"} 1000"#))
    }

    @Test("A header field HTTP allows once, sent twice, is 400 naming it; nothing is published")
    func repeatedSingletonFields() async throws {
        let stack = try GatewayStack()
        try await stack.startBroker()
        let keys = try await TenantKeys(in: stack.directory)
        let good = keys.good
        try await stack.startGateway(["--api-keys", keys.file.path])
        let event = TestEvents.array(try await TestEvents.lines(1, in: stack.directory))
        let base = [
            "Content-Type: application/json", "Authorization: Bearer \(good)", "Content-Length: \(event.utf8.count)",
        ]
        let repeated: [(field: String, second: String)] = [
            ("Content-Type", "Content-Type: text/plain"),
            ("Content-Length", "Content-Length: \(event.utf8.count)"),
            ("Content-Encoding", "Content-Encoding: identity"),
            ("Authorization", "Authorization: Bearer \(good)"),
            ("Idempotency-Key", "Idempotency-Key: b"),
        ]
        for (field, second) in repeated {
            var fields = base + [second]
            if field == "Content-Encoding" { fields.insert("Content-Encoding: identity", at: 0) }
            if field == "Idempotency-Key" { fields.insert("Idempotency-Key: a", at: 0) }
            let request =
                "POST /v1/daily-values HTTP/1.1\r\nHost: t\r\n" + fields.joined(separator: "\r\n")
                + "\r\n\r\n" + event
            let port = stack.port
            let (answer, _, _) = await onThread { rawRequest(host: "127.0.0.1", port: port, Array(request.utf8)) }
            #expect(answer?.status == 400, "\(field) twice")
            let text = answer.map { String(decoding: $0.body, as: UTF8.self) } ?? ""
            #expect(text.contains(field) || answer?.headers["content-type"] != "application/problem+json", "\(text)")
        }
        #expect(try await stack.records().isEmpty)
    }
}
