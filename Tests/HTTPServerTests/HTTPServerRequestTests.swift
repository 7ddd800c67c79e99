import Foundation
import TestSupport
import Testing

@testable import HTTPServer

/// What an ingest endpoint needs from the server: bodies within a limit, methods, the target, header fields, the
/// peer, and responses with any header, against raw sockets and curl.
@Suite("HTTPServer requests and responses", .serialized)
struct HTTPServerRequestTests {
    /// 64 KiB: several times the 8 KiB a connection has for its buffers, so a body arrives in many pieces.
    static let limit = 64 * 1024
    static let limits = HTTPServer.Limits(maxRequestBodyBytes: limit)

    /// Echoes the body and reports what the handler saw in `X-Seen-*` headers.
    static func echo(_ calls: Calls) -> HTTPServer.Handler {
        { request in
            calls.record(request)
            return .init(
                status: 200, contentType: "application/octet-stream",
                headers: [
                    "X-Seen-Method": request.method.token, "X-Seen-Path": request.path,
                    "X-Seen-Query": request.query.map { $0.isEmpty ? "(empty)" : $0 } ?? "(none)",
                    "X-Seen-Peer": request.remoteAddress ?? "(none)",
                ],
                body: request.body)
        }
    }

    /// Every byte value, repeated to `count` bytes (NUL, CR and LF included).
    static func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 / 256) }
    }

    static func post(_ path: String, _ head: String, _ body: [UInt8]) -> [UInt8] {
        Array("POST \(path) HTTP/1.1\r\nHost: t\r\n\(head)\r\n".utf8) + body
    }

    /// `body` in chunked transfer coding, in chunks of `size` bytes.
    static func chunked(_ body: [UInt8], size: Int) -> [UInt8] {
        var out: [UInt8] = []
        for start in stride(from: 0, to: body.count, by: size) {
            let chunk = body[start..<min(start + size, body.count)]
            out += Array("\(String(chunk.count, radix: 16))\r\n".utf8) + chunk + Array("\r\n".utf8)
        }
        return out + Array("0\r\n\r\n".utf8)
    }

    @Test("A POST body within the limit reaches the handler byte-exact (at the limit too), over raw sockets")
    func bodyWithinLimit() async throws {
        let calls = Calls()
        let server = try HTTPServer(address: "127.0.0.1", port: 0, limits: Self.limits, handler: Self.echo(calls))
        defer { server.shutdown() }
        for size in [1, 3000, Self.limit] {
            let body = Self.bytes(size)
            let request = Self.post("/v1/daily-values", "Content-Length: \(size)\r\n", body)
            let (response, _, _) = await onThread { rawRequest(host: "127.0.0.1", port: server.port, request) }
            #expect(response?.status == 200, "\(size) bytes")
            #expect(response?.body == body, "\(size) bytes echoed")
            #expect(calls.all.last?.body == body, "\(size) bytes seen by the handler")
            #expect(calls.all.last?.method == .post)
        }
        #expect(calls.all.count == 3)
    }

    @Test("Over the limit by Content-Length: 413 at once, before the body is sent (Expect: 100-continue)")
    func bodyOverLimit() async throws {
        let calls = Calls()
        let server = try HTTPServer(address: "127.0.0.1", port: 0, limits: Self.limits, handler: Self.echo(calls))
        defer { server.shutdown() }
        let body = Self.bytes(Self.limit + 1)
        let full = Self.post("/", "Content-Length: \(body.count)\r\n", body)
        let (response, closed, _) = await onThread { rawRequest(host: "127.0.0.1", port: server.port, full) }
        #expect(response?.status == 413)
        #expect(closed)
        // A client that waits for 100 Continue gets the 413 instead and never has to send the body.
        let head = Self.post("/", "Content-Length: \(body.count)\r\nExpect: 100-continue\r\n", [])
        let (early, _, elapsed) = await onThread { rawRequest(host: "127.0.0.1", port: server.port, head) }
        #expect(early?.status == 413)
        #expect(elapsed < .seconds(2), "answered without waiting for the body")
        #expect(calls.all.isEmpty, "the handler never sees a body over the limit")
    }

    @Test("Chunked bodies: within the limit joined byte-exact; past it 413, never kept, the handler never runs")
    func chunkedBodies() async throws {
        let calls = Calls()
        let server = try HTTPServer(address: "127.0.0.1", port: 0, limits: Self.limits, handler: Self.echo(calls))
        defer { server.shutdown() }
        let body = Self.bytes(Self.limit)
        let within = Self.post("/", "Transfer-Encoding: chunked\r\n", Self.chunked(body, size: 1000))
        let (ok, _, _) = await onThread { rawRequest(host: "127.0.0.1", port: server.port, within) }
        #expect(ok?.status == 200)
        #expect(ok?.body == body)
        #expect(calls.all.map(\.body) == [body])
        for size in [Self.limit + 1, 4 * Self.limit] {
            let over = Self.post("/", "Transfer-Encoding: chunked\r\n", Self.chunked(Self.bytes(size), size: 4096))
            let (refused, _, _) = await onThread { rawRequest(host: "127.0.0.1", port: server.port, over) }
            #expect(refused?.status == 413, "\(size) bytes")
        }
        #expect(calls.all.count == 1, "the handler never sees a body over the limit")
        #expect(await eventually(timeout: .seconds(5)) { server.liveRequests == 0 })
    }

    @Test("curl: a 200 KiB file, plain and chunked, arrives byte-exact; a bigger one gets 413")
    func curlUploads() async throws {
        let calls = Calls()
        let limits = HTTPServer.Limits(maxRequestBodyBytes: 256 * 1024)
        let server = try HTTPServer(address: "127.0.0.1", port: 0, limits: limits, handler: Self.echo(calls))
        defer { server.shutdown() }
        let directory = try TestEnvironment.temporaryDirectory("http-server-curl")
        defer { try? FileManager.default.removeItem(at: directory) }
        let body = Self.bytes(200 * 1024)
        let file = directory.appendingPathComponent("body.bin")
        try Data(body).write(to: file)
        let big = directory.appendingPathComponent("big.bin")
        try Data(Self.bytes(300 * 1024)).write(to: big)
        let url = "http://127.0.0.1:\(server.port)/v1/daily-values"
        for chunked in [false, true] {
            let extra = chunked ? ["-H", "Transfer-Encoding: chunked"] : []
            let ok = try await curl(["--data-binary", "@\(file.path)"] + extra + [url])
            #expect(ok.status == 0, "\(ok.stderr)")
            #expect(Array(ok.stdoutData) == body, "chunked: \(chunked)")
            let refused = try await curl(
                ["-o", "/dev/null", "-w", "%{http_code}", "--data-binary", "@\(big.path)"] + extra + [url])
            #expect(refused.stdout == "413", "chunked: \(chunked): \(refused.stderr)")
        }
        #expect(calls.all.map(\.body.count) == [body.count, body.count])
        #expect(calls.all.allSatisfy { $0.headers["content-type"] == "application/x-www-form-urlencoded" })
    }

    @Test("Method, raw path and query, repeated and case-insensitive header fields and the peer reach the handler")
    func requestParts() async throws {
        let calls = Calls()
        let server = try HTTPServer(address: "::", port: 0, limits: Self.limits, handler: Self.echo(calls))
        defer { server.shutdown() }
        let request = Array(
            ("PURGE /a%20b/c?x=1&y=%2F&x=2 HTTP/1.1\r\nHost: t\r\nX-Tag: one\r\nx-tag: two\r\n"
                + "Authorization: Bearer t0k\r\nX-TAG: three\r\n\r\n").utf8)
        let (v4, _, _) = await onThread { rawRequest(host: "127.0.0.1", port: server.port, request) }
        #expect(v4?.status == 200)
        #expect(v4?.headers["x-seen-method"] == "PURGE")
        #expect(v4?.headers["x-seen-path"] == "/a%20b/c")
        #expect(v4?.headers["x-seen-query"] == "x=1&y=%2F&x=2")
        #expect(v4?.headers["x-seen-peer"] == "127.0.0.1")
        let seen = try #require(calls.all.last)
        #expect(seen.method == .other("PURGE"))
        #expect(seen.headers.values(for: "X-tag") == ["one", "two", "three"])
        #expect(seen.headers["X-TAG"] == "one")
        #expect(seen.headers["authorization"] == "Bearer t0k")
        #expect(seen.headers.fields.map(\.name).filter { $0.lowercased() == "x-tag" } == ["X-Tag", "x-tag", "X-TAG"])
        let (v6, _, _) = await onThread { rawRequest(host: "::1", port: server.port, path: "/p?") }
        #expect(v6?.headers["x-seen-peer"] == "::1")
        #expect(v6?.headers["x-seen-query"] == "(empty)")
        #expect(v6?.headers["x-seen-method"] == "GET")
        let (plain, _, _) = await onThread { rawRequest(host: "::1", port: server.port, path: "/p") }
        #expect(plain?.headers["x-seen-query"] == "(none)")
    }

    @Test("Handler headers reach the client (repeated ones too); HEAD gets the head only; server-owned ones are a 500")
    func responseHeaders() async throws {
        let server = try HTTPServer(address: "127.0.0.1", port: 0) { request in
            switch request.path {
            case "/throttled":
                return .init(
                    status: 429, headers: ["Retry-After": "7", "Link": "<a>", "Link": "<b>"], body: "slow down\n")
            case "/auth":
                return .init(status: 401, headers: ["WWW-Authenticate": #"Bearer realm="ingest""#], body: "who?\n")
            case "/cached":
                return .init(status: 200, contentType: nil, headers: ["Cache-Control": "max-age=60"], body: [1, 2])
            default:
                return .init(status: 200, headers: ["Content-Length": "1"], body: "x")
            }
        }
        defer { server.shutdown() }
        let port = server.port
        let (throttled, _, _) = await onThread { rawRequest(host: "127.0.0.1", port: port, path: "/throttled") }
        #expect(throttled?.status == 429)
        #expect(throttled?.headers["retry-after"] == "7")
        #expect(throttled?.fields.filter { $0.name == "Link" }.map(\.value) == ["<a>", "<b>"])
        #expect(throttled?.headers["cache-control"] == "no-store")
        #expect(throttled.map { String(decoding: $0.body, as: UTF8.self) } == "slow down\n")
        let (head, _, _) = await onThread {
            rawRequest(host: "127.0.0.1", port: port, method: "HEAD", path: "/throttled")
        }
        #expect(head?.status == 429)
        #expect(head?.headers["retry-after"] == "7")
        #expect(head?.body.isEmpty == true)
        let auth = try await curl(["-s", "-i", "http://127.0.0.1:\(port)/auth"])
        #expect(auth.stdout.contains("HTTP/1.1 401"))
        #expect(auth.stdout.contains(#"WWW-Authenticate: Bearer realm="ingest""#), "\(auth.stdout)")
        let (cached, _, _) = await onThread { rawRequest(host: "127.0.0.1", port: port, path: "/cached") }
        #expect(cached?.headers["cache-control"] == "max-age=60")
        #expect(cached?.headers["content-type"] == nil)
        #expect(cached?.body == [1, 2])
        let (owned, _, _) = await onThread { rawRequest(host: "127.0.0.1", port: port, path: "/owned") }
        #expect(owned?.status == 500)
    }

    @Test("beforeBody answers from the head alone: the body is never read and the handler never runs")
    func beforeBody() async throws {
        let calls = Calls()
        let server = try HTTPServer(
            address: "127.0.0.1", port: 0, limits: Self.limits,
            beforeBody: { head in
                if head.method != .post {
                    return .init(status: 405, headers: ["Allow": "POST"], body: "use POST\n")
                }
                return head.headers["Authorization"] == nil ? .init(status: 401, body: "who?\n") : nil
            },
            handler: Self.echo(calls))
        defer { server.shutdown() }
        let port = server.port
        let (get, _, _) = await onThread { rawRequest(host: "127.0.0.1", port: port, path: "/") }
        #expect(get?.status == 405)
        #expect(get?.headers["allow"] == "POST")
        // Over the limit and unauthorized: the early check answers first, and no 100 Continue is sent.
        let unauthorized = Self.post("/", "Content-Length: \(4 * Self.limit)\r\nExpect: 100-continue\r\n", [])
        let (refused, _, _) = await onThread { rawRequest(host: "127.0.0.1", port: port, unauthorized) }
        #expect(refused?.status == 401)
        let (ok, _, _) = await onThread {
            rawRequest(
                host: "127.0.0.1", port: port, Self.post("/", "Authorization: x\r\nContent-Length: 2\r\n", [7, 8]))
        }
        #expect(ok?.status == 200)
        #expect(ok?.body == [7, 8])
        #expect(calls.all.count == 1)
    }

    @Test("Every request's state is released, however the request ended")
    func requestStatesReleased() async throws {
        let limits = HTTPServer.Limits(
            idleTimeout: .seconds(1), connectionDeadline: .seconds(2), maxRequestBodyBytes: 100)
        let server = try HTTPServer(address: "127.0.0.1", port: 0, limits: limits, handler: Self.echo(Calls()))
        let port = server.port
        let requests: [[UInt8]] = [
            Array("GET / HTTP/1.1\r\n\r\n".utf8), Self.post("/", "Content-Length: 101\r\n", []),
            Self.post("/", "Transfer-Encoding: chunked\r\n", Self.chunked(Self.bytes(500), size: 50)),
            Array("GET / HTTP/1.1\r\nX-Big: \(String(repeating: "a", count: 16 * 1024))\r\n\r\n".utf8),
            Self.post("/", "Content-Length: 50\r\n", Self.bytes(10)),  // the client stops sending: idle timeout
        ]
        for request in requests {
            _ = await onThread { rawRequest(host: "127.0.0.1", port: port, request, timeout: .seconds(4)) }
        }
        // A client gone in the middle of a body, once the daemon holds its request (otherwise the check below could
        // pass before the daemon even read it, and the request would still be live when the next part counts).
        let seen = await onThread { () -> Bool in
            let gone = RawSocket(host: "127.0.0.1", port: port)
            gone?.send(Self.post("/", "Content-Length: 80\r\n", Self.bytes(20)))
            let deadline = ContinuousClock.now + .seconds(5)
            while server.liveRequests == 0 && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
            return withExtendedLifetime(gone) { server.liveRequests == 1 }
        }
        #expect(seen, "the gone client's request reached the daemon")
        #expect(await eventually(timeout: .seconds(5)) { server.liveRequests == 0 })
        // The daemon stopping while a client is in the middle of a body.
        let inFlight = await onThread { () -> Int in
            let open = RawSocket(host: "127.0.0.1", port: port)
            open?.send(Self.post("/", "Content-Length: 80\r\n", Self.bytes(20)))
            Thread.sleep(forTimeInterval: 0.3)
            let inFlight = server.liveRequests
            server.shutdown()
            withExtendedLifetime(open) {}
            return inFlight
        }
        #expect(inFlight == 1, "the open request is counted until the daemon stops")
        #expect(server.liveRequests == 0)
    }

    private func curl(_ arguments: [String]) async throws -> ProcessResult {
        try await ChildProcess.run("/usr/bin/curl", ["-sS", "--max-time", "10"] + arguments, timeout: .seconds(30))
    }
}
