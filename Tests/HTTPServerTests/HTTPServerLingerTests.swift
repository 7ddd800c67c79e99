import Foundation
import TestSupport
import Testing

@testable import HTTPServer

/// An answer sent before the body was read (413 by `Content-Length`, 401, 415, … from the head check) always
/// reaches a client that is still sending: the server lingers — reads and drops the rest, within bounds — instead
/// of closing a socket with unread data, whose reset would overtake the answer.
@Suite("HTTPServer lingering close", .serialized)
struct HTTPServerLingerTests {
    static let limit = 256 * 1024
    static let tooLarge = "the request body is over \(limit) bytes\n"
    static let repetitions = 200

    static func server(limits: HTTPServer.Limits = .init(maxRequestBodyBytes: limit)) throws -> HTTPServer {
        try HTTPServer(
            address: "127.0.0.1", port: 0, limits: limits,
            beforeBody: { head in head.path == "/locked" ? .init(status: 401, body: "who are you?\n") : nil },
            handler: { request in .init(status: 200, body: "\(request.body.count)\n") })
    }

    @Test("curl, 200 times each: a 2 MiB upload, plain, chunked and to a refusing path, always reads its answer")
    func curlAlwaysReadsTheAnswer() async throws {
        let server = try Self.server()
        defer { server.shutdown() }
        let directory = try TestEnvironment.temporaryDirectory("http-linger-curl")
        defer { try? FileManager.default.removeItem(at: directory) }
        let big = directory.appendingPathComponent("big.bin")
        try Data(repeating: 0x41, count: 2 << 20).write(to: big)
        let base = "http://127.0.0.1:\(server.port)"
        // `Expect:` off: the body follows the head at once, the case where a reset can overtake the answer.
        let cases: [(name: String, path: String, extra: [String], status: String, body: String)] = [
            ("plain", "/", [], "413", Self.tooLarge),
            ("chunked", "/", ["-H", "Transfer-Encoding: chunked"], "413", Self.tooLarge),
            ("refused by the head check", "/locked", [], "401", "who are you?\n"),
        ]
        for item in cases {
            var failures: [String] = []
            for round in 0..<Self.repetitions {
                let result = try await ChildProcess.run(
                    "/usr/bin/curl",
                    [
                        "-sS", "--max-time", "10", "-H", "Expect:", "-w", "\n%{http_code}", "--data-binary",
                        "@\(big.path)",
                    ]
                        + item.extra + [base + item.path], timeout: .seconds(30))
                let expected = item.body + "\n" + item.status
                if result.stdout != expected {
                    failures.append(
                        "round \(round): exit \(result.status), \(result.stdout.suffix(80)) \(result.stderr)")
                }
            }
            #expect(failures.isEmpty, "\(item.name): \(failures.count) of \(Self.repetitions): \(failures.prefix(3))")
        }
        #expect(await eventually(timeout: .seconds(5)) { server.liveRequests == 0 })
    }

    @Test("A raw client writing a 4 MiB body, reading after it or all along, sends it all and gets the 413, 200 times")
    func rawWriterReadsTheAnswer() async throws {
        let server = try Self.server()
        defer { server.shutdown() }
        let port = server.port
        let size = 4 << 20
        let head = Array("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: \(size)\r\n\r\n".utf8)
        for readWhileWriting in [false, true] {
            let outcomes = await onThread { () -> [RawSocket.KeptWriting?] in
                (0..<Self.repetitions).map { _ in
                    RawSocket(host: "127.0.0.1", port: port)?.keepWriting(
                        head: head, bodyBytes: size, readWhileWriting: readWhileWriting, timeout: .seconds(10))
                }
            }
            // Like curl, a client whose send fails reports a send failure, not the answer: every byte must go out.
            let answered = outcomes.filter {
                $0?.bodyBytesSent == size && $0?.response?.status == 413
                    && $0?.response?.body == Array(Self.tooLarge.utf8)
            }
            let cut = outcomes.filter { $0?.bodyBytesSent != size }.count
            let resets = outcomes.filter { $0?.reset == true }.count
            #expect(
                answered.count == Self.repetitions,
                "reading while writing: \(readWhileWriting); \(cut) could not send their body, \(resets) reset")
        }
    }

    @Test("Lingering is bounded: a client that never stops sending is closed after lingerBytes or lingerTime")
    func lingeringIsBounded() async throws {
        let head = Array("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: \(1 << 30)\r\n\r\n".utf8)
        // By bytes: 1 MiB dropped, then closed, long before the 30 s linger time.
        let byBytes = try Self.server(
            limits: .init(maxRequestBodyBytes: Self.limit, lingerTime: .seconds(30), lingerBytes: 1 << 20))
        defer { byBytes.shutdown() }
        let bytesPort = byBytes.port
        let cutByBytes = await onThread {
            RawSocket(host: "127.0.0.1", port: bytesPort)?.keepWriting(
                head: head, bodyBytes: 1 << 30, readWhileWriting: true, timeout: .seconds(20))
        }
        #expect(cutByBytes?.response?.status == 413)
        #expect(cutByBytes?.sendFailedAfter.map { $0 < .seconds(10) } == true, "\(String(describing: cutByBytes))")
        #expect(cutByBytes.map { $0.bodyBytesSent < 64 << 20 } == true)
        // By time: a client that trickles a byte every 50 ms is closed once the 1 s linger time is over.
        let byTime = try Self.server(
            limits: .init(maxRequestBodyBytes: Self.limit, lingerTime: .seconds(1), lingerBytes: 1 << 30))
        defer { byTime.shutdown() }
        let timePort = byTime.port
        let cutByTime = await onThread { () -> (answer: RawHTTPResponse?, sendFailedAfter: Duration?) in
            guard let socket = RawSocket(host: "127.0.0.1", port: timePort) else { return (nil, nil) }
            let started = ContinuousClock.now
            socket.send(head + [UInt8](repeating: 0x41, count: 1024))
            let (answer, _) = socket.readUntilClosed(timeout: .seconds(2))
            while ContinuousClock.now - started < .seconds(8) {
                Thread.sleep(forTimeInterval: 0.05)
                if !socket.send([0x41]) { return (RawHTTPResponse(answer), ContinuousClock.now - started) }
            }
            return (RawHTTPResponse(answer), nil)
        }
        #expect(cutByTime.answer?.status == 413)
        let failed = try #require(cutByTime.sendFailedAfter, "the lingering socket is closed")
        #expect(failed >= .milliseconds(900), "not before the linger time")
        #expect(failed < .seconds(5), "within the 1 s linger time and the poll's wake-up")
        #expect(await eventually(timeout: .seconds(2)) { byTime.lingering == 0 })
    }
}
