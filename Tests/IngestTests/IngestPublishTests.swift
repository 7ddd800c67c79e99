import Foundation
import Kafka
import TestSupport
import Testing

/// `ingest` as a real process on the embedded broker, driven by curl: what is accepted is on the topic exactly as
/// `producer publish` would have put it (original bytes, key = patient) at the partition and offset of its receipt;
/// a JSON array, JSON lines and gzip are the same records.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct IngestPublishTests {
    @Test("202 receipts name where each record is; array, NDJSON and gzip publish the original bytes keyed by patient")
    func acceptedRecordsAreOnTheTopic() async throws {
        let stack = try GatewayStack()
        try await stack.startBroker()
        try await stack.startGateway(["--insecure-no-auth"])
        let events = try await TestEvents.lines(30, in: stack.directory)
        let array = try stack.file("array.json", TestEvents.array(Array(events[0..<10])))
        let lines = try stack.file(
            "lines.ndjson", TestEvents.ndjson(Array(events[10..<20])).replacingOccurrences(of: "\n", with: "\r\n"))
        let zipped = stack.directory.appendingPathComponent("zipped.json.gz")
        _ = try stack.file("zipped.json", TestEvents.array(Array(events[20..<30])))
        let gzip = try await runCommand(
            "/bin/sh", ["-c", "gzip -c '\(stack.directory.path)/zipped.json' > '\(zipped.path)'"])
        #expect(gzip.status == 0)

        var sent: [(line: String, receipt: [String: Any])] = []
        let requests: [(file: URL, type: String, extra: [String], lines: ArraySlice<String>)] = [
            (array, "application/json", [], events[0..<10]),
            (lines, "application/x-ndjson", [], events[10..<20]),
            (zipped, "application/json; charset=utf-8", ["Content-Encoding: gzip"], events[20..<30]),
        ]
        for request in requests {
            let answer = try await stack.curl(
                CurlResponse.post(stack.url, file: request.file, contentType: request.type, headers: request.extra))
            #expect(answer.status == 202, "\(request.type): \(answer.text)")
            #expect(answer.contentType == "application/json")
            #expect(answer.json?["accepted"] as? Int == request.lines.count)
            #expect(answer.receipts.map { $0["index"] as? Int } == Array(0..<request.lines.count))
            sent += zip(request.lines, answer.receipts).map { ($0, $1) }
        }
        let records = try await stack.records()
        #expect(records.count == 30)
        let byPosition = Dictionary(uniqueKeysWithValues: records.map { ("\($0.partition)@\($0.offset)", $0) })
        for (line, receipt) in sent {
            let position = "\(receipt["partition"] as? Int ?? -1)@\(receipt["offset"] as? Int ?? -1)"
            let record = try #require(byPosition[position], "receipt \(position) names no record")
            #expect(record.value == Array(line.utf8), "the original bytes, as producer publish sends them")
            #expect(record.key == Array(TestEvents.patient(line).utf8), "key = patient")
            #expect(record.headers.isEmpty)
        }
    }

    @Test("400 says where: a record that is not JSON, a body that is not one array, trailing data, no records")
    func malformedBodies() async throws {
        let stack = try GatewayStack()
        try await stack.startBroker()
        try await stack.startGateway(["--insecure-no-auth"])
        let events = try await TestEvents.lines(3, in: stack.directory)
        let cases: [(name: String, body: String, type: String, index: Int?, line: Int?)] = [
            (
                "broken record", "[\n\(events[0]),\n{\"schema\":1,\"patient\":\n,\n\(events[1])]", "application/json",
                1, 3
            ),
            ("two objects in one element", "[\(events[0]) \(events[1])]", "application/json", 0, 1),
            ("not an array", events[0], "application/json", 0, 1),
            ("unterminated array", "[\(events[0]),\n\(events[1])", "application/json", 1, 2),
            ("trailing data", "[\(events[0])]\n{}", "application/json", 1, 2),
            ("empty array", "[ ]", "application/json", nil, nil),
            ("empty NDJSON", "\n\n", "application/x-ndjson", nil, nil),
            ("broken line", "\(events[0])\n\(events[1].dropLast())\n\(events[2])\n", "application/x-ndjson", 1, 2),
        ]
        for (index, test) in cases.enumerated() {
            let file = try stack.file("bad-\(index).json", test.body)
            let answer = try await stack.curl(CurlResponse.post(stack.url, file: file, contentType: test.type))
            #expect(answer.status == 400, "\(test.name): \(answer.text)")
            #expect(answer.contentType == "application/problem+json")
            #expect(answer.json?["type"] as? String == "urn:dvp:ingest:malformed-request")
            if let expected = test.index {
                #expect(answer.errors.first?["index"] as? Int == expected, "\(test.name): \(answer.text)")
                #expect(answer.errors.first?["line"] as? Int == test.line, "\(test.name): \(answer.text)")
            }
        }
        #expect(try await stack.records().isEmpty, "nothing of a refused request is published")
    }

    @Test("422 lists each failing record's index, JSON pointer and the decoder's reason; nothing is published")
    func invalidRecords() async throws {
        let stack = try GatewayStack()
        try await stack.startBroker()
        try await stack.startGateway(["--insecure-no-auth"])
        let events = try await TestEvents.lines(4, in: stack.directory)
        func edited(_ line: String, _ change: (inout [String: Any]) -> Void) throws -> String {
            var object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            change(&object)
            return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        }
        let body = [
            events[0],
            try edited(events[1]) { $0["metric"] = "mood" },
            events[2],
            try edited(events[3]) { $0["source"] = ["bundleId": String(repeating: "x", count: 300)] },
            try edited(events[0]) { $0.removeValue(forKey: "day") },
        ]
        let answer = try await stack.curl(
            CurlResponse.post(stack.url, file: try stack.file("invalid.json", TestEvents.array(body))))
        #expect(answer.status == 422, "\(answer.text)")
        #expect(answer.json?["type"] as? String == "urn:dvp:ingest:invalid-records")
        let errors = answer.errors.map {
            "\($0["index"] as? Int ?? -1) \($0["pointer"] as? String ?? "?") \($0["class"] as? String ?? "?")"
        }
        #expect(errors == ["1 /metric UnknownMetric", "3 /source/bundleId InvalidSource", "4 /day MissingField"])
        #expect(answer.errors.allSatisfy { ($0["reason"] as? String)?.isEmpty == false })
        #expect(try await stack.records().isEmpty)
    }

    @Test("415 for other media types and encodings, 405 with Allow for other methods, 404 elsewhere")
    func refusedFromTheHead() async throws {
        let stack = try GatewayStack()
        try await stack.startBroker()
        try await stack.startGateway(["--insecure-no-auth"])
        let body = try stack.file("one.json", TestEvents.array(try await TestEvents.lines(1, in: stack.directory)))
        for type in ["text/plain", "application/xml", "application/json; charset=latin1"] {
            let answer = try await stack.curl(CurlResponse.post(stack.url, file: body, contentType: type))
            #expect(answer.status == 415, "\(type)")
            #expect(answer.headers["accept-post"] == "application/json, application/x-ndjson")
        }
        let noType = try await stack.curl([
            "-X", "POST", "-H", "Content-Type:", "--data-binary", "@\(body.path)", "\(stack.url)/v1/daily-values",
        ])
        #expect(noType.status == 415)
        let brotli = try await stack.curl(CurlResponse.post(stack.url, file: body, headers: ["Content-Encoding: br"]))
        #expect(brotli.status == 415)
        #expect(brotli.headers["accept-encoding"] == "gzip")
        for method in ["GET", "PUT", "DELETE", "PATCH"] {
            let answer = try await stack.curl(["-X", method, "\(stack.url)/v1/daily-values"])
            #expect(answer.status == 405, "\(method)")
            #expect(answer.headers["allow"] == "POST")
        }
        let probe = try await stack.curl(["-X", "POST", "--data", "x", "\(stack.adminURL)/metrics"])
        #expect(probe.status == 405)
        #expect(probe.headers["allow"] == "GET, HEAD")
        // The probes and the metrics are the admin listener's only: the public port serves neither.
        for path in ["/healthz", "/readyz", "/metrics"] {
            let publicProbe = try await stack.curl(["\(stack.url)\(path)"])
            #expect(publicProbe.status == 404, "\(path) on the public port")
            #expect(!publicProbe.text.contains("dvp_ingest"), "\(path) on the public port")
        }
        #expect(try await stack.curl(["\(stack.url)/v2/daily-values"]).status == 404)
        #expect(try await stack.records().isEmpty)
    }

    @Test("413 for too many records, an announced body over the limit, and a gzip bomb (inflated only to the limit)")
    func sizeLimits() async throws {
        let stack = try GatewayStack()
        try await stack.startBroker()
        try await stack.startGateway(["--insecure-no-auth", "--max-records", "5", "--max-body-bytes", "1048576"])
        let events = try await TestEvents.lines(6, in: stack.directory)
        let six = try await stack.curl(
            CurlResponse.post(stack.url, file: try stack.file("six.json", TestEvents.array(events))))
        #expect(six.status == 413, "\(six.text)")
        #expect(six.contentType == "application/problem+json")
        let five = try await stack.curl(
            CurlResponse.post(stack.url, file: try stack.file("five.json", TestEvents.array(Array(events.prefix(5))))))
        #expect(five.status == 202, "at the limit: \(five.text)")
        let big = try stack.file("big.json", String(repeating: " ", count: 1_048_577) + TestEvents.array([events[0]]))
        let announced = try await stack.curl(CurlResponse.post(stack.url, file: big))
        #expect(announced.status == 413)
        #expect(announced.contentType == "application/problem+json")

        // 256 MiB of spaces in ~256 KB of gzip: refused after inflating 1 MiB.
        let bomb = stack.directory.appendingPathComponent("bomb.gz")
        let made = try await runCommand(
            "/bin/sh", ["-c", "head -c 268435456 /dev/zero | tr '\\0' ' ' | gzip -9 > '\(bomb.path)'"])
        #expect(made.status == 0)
        let pid = try #require(stack.gateway?.pid)
        let started = ContinuousClock.now
        let refused = try await stack.curl(
            CurlResponse.post(stack.url, file: bomb, headers: ["Content-Encoding: gzip"]))
        #expect(refused.status == 413, "\(refused.text)")
        #expect(refused.text.contains("inflates to more than 1048576 bytes"))
        #expect(ContinuousClock.now - started < .seconds(20))
        let peak = try Self.peakResidentKiB(pid: pid)
        #expect(peak < 200 * 1024, "peak RSS \(peak) KiB: the bomb was not inflated past the limit")
        #expect(try await stack.records().count == 5)
    }

    @Test("An upload over --max-body-bytes, plain, chunked or gzip, sent at once: always 413 and why, 200 times each")
    func oversizedUploadsAlwaysAnswered() async throws {
        let stack = try GatewayStack()
        try await stack.startBroker()
        try await stack.startGateway(["--insecure-no-auth", "--max-body-bytes", "1048576"])
        let plain = stack.directory.appendingPathComponent("big.json")
        let zipped = stack.directory.appendingPathComponent("big.json.gz")
        // 3 MiB of random text: its gzip is still over the 1 MiB limit on the wire.
        let made = try await runCommand(
            "/bin/sh",
            [
                "-c",
                "head -c 2359296 /dev/urandom | base64 -w0 > '\(plain.path)' && gzip -1 -c '\(plain.path)' > '\(zipped.path)'",
            ])
        #expect(made.status == 0)
        // `Expect:` off: the body follows the head at once, so the gateway answers while the client is still sending.
        let cases: [(name: String, file: URL, headers: [String])] = [
            ("plain", plain, ["Expect:"]),
            ("chunked", plain, ["Expect:", "Transfer-Encoding: chunked"]),
            ("gzip", zipped, ["Expect:", "Content-Encoding: gzip"]),
        ]
        for item in cases {
            var failures: [String] = []
            for round in 0..<200 {
                do {
                    let answer = try await stack.curl(
                        CurlResponse.post(stack.url, file: item.file, headers: item.headers))
                    if answer.status != 413 || answer.contentType != "application/problem+json"
                        || !answer.text.contains("1048576")
                    {
                        failures.append("round \(round): \(answer.status) \(answer.text.prefix(200))")
                    }
                } catch {
                    failures.append("round \(round): \(error)")
                }
            }
            #expect(failures.isEmpty, "\(item.name): \(failures.count) of 200: \(failures.prefix(3))")
        }
        #expect(try await stack.records().isEmpty)
    }

    @Test("A gzip body that with its inflated bytes passes --max-in-flight-bytes is 413 on an idle gateway, not 429")
    func gzipThatCanNeverFit() async throws {
        let stack = try GatewayStack()
        try await stack.startBroker()
        try await stack.startGateway([
            "--insecure-no-auth", "--max-body-bytes", "1048576", "--max-in-flight-bytes", "1048576",
        ])
        let events = try await TestEvents.lines(1, in: stack.directory)
        // Inflated: 1,048,376 bytes (under --max-body-bytes); with the ~1 KB of gzip held too, over the bound.
        let array = TestEvents.array(events)
        let plain = try stack.file("wide.json", String(repeating: " ", count: 1_048_376 - array.utf8.count) + array)
        let zipped = stack.directory.appendingPathComponent("wide.json.gz")
        #expect(try await runCommand("/bin/sh", ["-c", "gzip -9 -c '\(plain.path)' > '\(zipped.path)'"]).status == 0)
        let compressed = try #require(try FileManager.default.attributesOfItem(atPath: zipped.path)[.size] as? Int)
        #expect(compressed > 200, "the premise: compressed + inflated > 1,048,576")
        for _ in 0..<2 {
            let answer = try await stack.curl(
                CurlResponse.post(stack.url, file: zipped, headers: ["Content-Encoding: gzip"]))
            #expect(answer.status == 413, "a retry can never succeed: \(answer.text)")
            #expect(answer.headers["retry-after"] == nil)
        }
        let accepted = try await stack.curl(CurlResponse.post(stack.url, file: plain))
        #expect(accepted.status == 202, "uncompressed it fits: \(accepted.text)")
    }

    /// `VmHWM` of a process, in KiB.
    static func peakResidentKiB(pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? .max
    }
}
