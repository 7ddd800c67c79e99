import Foundation
import Kafka
import TestSupport
import Testing

/// Misbehaving clients, a broker outage in the middle of a stream, and a stop under load, against a real `ingest`
/// process: the gateway stays healthy, never tells a client "accepted" for a record the broker does not have, and
/// answers what is in flight before it exits 0.
@Suite(.serialized, .timeLimit(.minutes(6)))
struct IngestFaultTests {
    @Test("Slowloris and abrupt disconnects: connections are cut at the deadline, slots come back, probes answer")
    func misbehavingClients() async throws {
        let stack = try GatewayStack()
        try await stack.startBroker()
        try await stack.startGateway(["--insecure-no-auth", "--request-timeout", "1", "--max-concurrent-requests", "8"])
        let events = try await TestEvents.lines(4, in: stack.directory)
        let body = try stack.file("body.json", TestEvents.array(events))
        let bodyBytes = Array(TestEvents.array(events).utf8)

        let slow = SlowClients(count: 20, host: "127.0.0.1", port: stack.port, interval: .milliseconds(200))
        let slowSince = ContinuousClock.now
        let port = stack.port
        // Bodies that stop halfway and clients that leave while their answer is pending (the broker is slow).
        try await stack.control("rtt -1 700")
        await onThread {
            for _ in 0..<6 {
                let half =
                    "POST /v1/daily-values HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
                    + "Content-Length: \(bodyBytes.count)\r\n\r\n"
                RawSocket(host: "127.0.0.1", port: port)?.send(Array(half.utf8) + bodyBytes.prefix(bodyBytes.count / 2))
                let whole = RawSocket(host: "127.0.0.1", port: port)
                whole?.send(Array(half.utf8) + bodyBytes)
            }
        }
        for _ in 0..<5 {
            let probe = try await stack.curl(["\(stack.adminURL)/healthz"])
            #expect(probe.status == 200)
            // Held up by the slow clients would mean until their connection deadline (6 s); slack for a loaded run.
            #expect(probe.seconds < 3, "a probe is never held up by slow clients (\(probe.seconds) s)")
            try await Task.sleep(for: .milliseconds(500))
        }
        try await stack.control("rtt -1 0")
        #expect(await stack.metricsEventually(contain: "dvp_ingest_in_flight_requests 0\n"), "every slot is given back")
        // The connection deadline is the request timeout + 5 s: past it (and a sweep), every slow client is cut off.
        try await Task.sleep(until: slowSince + .seconds(7.5))
        let (open, total) = await slow.stop()
        #expect(total == 20)
        #expect(open == 0, "slow clients are cut off at the connection deadline (request timeout + 5 s)")
        let after = try await stack.curl(CurlResponse.post(stack.url, file: body))
        #expect(after.status == 202, "\(after.text)")
        #expect(stack.gateway?.isRunning == true)
    }

    @Test("Brokers down mid-stream: 503s, never 202 for a record the topic lacks; every receipt's record is there")
    func brokerOutageMidStream() async throws {
        let stack = try GatewayStack(partitions: 4)
        try await stack.startBroker()
        try await stack.startGateway(["--insecure-no-auth", "--request-timeout", "2"])
        let lines = try await TestEvents.lines(3000, seed: 11, in: stack.directory)
        let events = try stack.file("stream.jsonl", lines.joined(separator: "\n") + "\n")
        let answersFile = stack.directory.appendingPathComponent("answers.jsonl")
        let python = try await TestPython.executable().path
        let url = stack.url
        let stream = Task {
            try await runCommand(
                python,
                [
                    TestEnvironment.script("ingest_stream.py"), "--url", url, "--events", events.path,
                    "--per-request", "10", "--threads", "4", "--pause-ms", "20", "--out", answersFile.path,
                ])
        }
        func answered() -> Int {
            ((try? String(contentsOf: answersFile, encoding: .utf8)) ?? "").split(separator: "\n").count
        }
        #expect(await eventually(timeout: .seconds(60), interval: .milliseconds(20)) { answered() >= 40 })
        for broker in 1...3 { try await stack.control("down \(broker)") }
        try await Task.sleep(for: .seconds(3))
        for broker in 1...3 { try await stack.control("up \(broker)") }
        #expect(answered() < 300, "the stream was still running when the brokers came back")
        let result = try await stream.value
        #expect(result.status == 0, "\(result.stderr)")

        let answers = try String(contentsOf: answersFile, encoding: .utf8).split(separator: "\n").compactMap {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(answers.count == 300)
        let statuses = Dictionary(grouping: answers, by: { $0["status"] as? Int ?? -1 }).mapValues(\.count)
        #expect(Set(statuses.keys).isSubset(of: [202, 503]), "only 202 or 503: \(statuses)")
        #expect((statuses[503] ?? 0) > 0, "the outage was seen: \(statuses)")
        #expect((statuses[202] ?? 0) > 0, "\(statuses)")

        let records = try await stack.records()
        let byPosition = Dictionary(
            records.map { ("\($0.partition)@\($0.offset)", $0) }, uniquingKeysWith: { a, _ in a })
        var checked = 0
        for answer in answers where answer["status"] as? Int == 202 {
            let first = try #require(answer["first"] as? Int)
            let receipts = try #require(answer["receipts"] as? [[Int]])
            for (index, receipt) in receipts.enumerated() {
                let record = byPosition["\(receipt[0])@\(receipt[1])"]
                #expect(
                    record?.value == Array(lines[first + index].utf8), "receipt \(receipt) of line \(first + index)")
                checked += 1
            }
        }
        #expect(checked == (statuses[202] ?? 0) * 10)
        #expect(stack.gateway?.isRunning == true)
    }

    @Test("SIGTERM: no new connections, the requests in flight are answered 202, the producer flushed, exit 0")
    func stopUnderLoad() async throws {
        let stack = try GatewayStack()
        try await stack.startBroker()
        try await stack.startGateway(["--insecure-no-auth", "--request-timeout", "10", "--drain-timeout", "20"])
        let events = try await TestEvents.lines(12, in: stack.directory)
        let files = try (0..<4).map {
            try stack.file("part-\($0).json", TestEvents.array(Array(events[($0 * 3)..<($0 * 3 + 3)])))
        }
        try await stack.control("rtt -1 1500")
        let url = stack.url
        let directory = stack.directory
        let inFlight = files.map { file in
            Task { try await CurlResponse.run(CurlResponse.post(url, file: file), directory: directory) }
        }
        #expect(await stack.metricsEventually(contain: "dvp_ingest_in_flight_requests 4\n"), "all four admitted")
        let gateway = try #require(stack.gateway)
        gateway.signal(SIGTERM)
        #expect(
            await eventually(timeout: .seconds(20), interval: .milliseconds(20)) {
                gateway.stderr.contains("stopping: no new connections")
            }, "the stop began (logged after the listener closed)")
        let refused = try await runCommand("/usr/bin/curl", ["-sS", "--max-time", "5", "\(url)/healthz"])
        #expect(refused.status != 0, "a stopping gateway takes no new connection: \(refused.stdout)")
        for task in inFlight {
            let answer = try await task.value
            #expect(answer.status == 202, "\(answer.text)")
        }
        let status = await gateway.waitForExit(timeout: .seconds(25))
        #expect(status == 0, "\(gateway.stderr.suffix(1500))")
        try await stack.control("rtt -1 0")
        #expect(try await stack.records().count == 12)
        #expect(gateway.stderr.contains("\"stopped\""))
    }
}
