import Foundation
import HTTPServer
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The server's hardening against raw-socket clients (helpers in TestSupport/RawHTTPClient.swift), with the
/// worker's limits (the defaults).
@Suite("HTTPServer", .serialized)
struct HTTPServerTests {
    /// Routes like the worker's, reduced to what the tests need.
    static let handler: HTTPServer.Handler = { request in
        switch request.path {
        case "/healthz": return .init(status: 200, body: "ok\n")
        case "/big": return .init(status: 200, body: String(repeating: "0123456789abcdef", count: 20_000))
        default: return .init(status: 404, body: "not found\n")
        }
    }

    @Test("50 slowloris connections: /healthz on a fresh connection answers within a probe's 1 s timeout throughout")
    func slowClientsDoNotDelayProbes() async throws {
        // The connection deadline and the head timeout are tested on their own; here they must outlast the probes
        // even when a loaded CI machine stretches the test's sleeps, so the slow connections are provably held open
        // throughout.
        let limits = HTTPServer.Limits(connectionDeadline: .seconds(120), headTimeout: .seconds(120))
        let server = try HTTPServer(address: "0.0.0.0", port: 0, limits: limits, handler: Self.handler)
        defer { server.shutdown() }
        let slow = SlowClients(count: 50, host: "127.0.0.1", port: server.port, interval: .seconds(1))
        try await Task.sleep(for: .milliseconds(500))
        var latencies: [Duration] = []
        for round in 0..<10 {
            let host = round.isMultiple(of: 2) ? "127.0.0.1" : "::1"
            let (response, _, elapsed) = await onThread { rawRequest(host: host, port: server.port, path: "/healthz") }
            #expect(response?.status == 200, "round \(round) over \(host)")
            latencies.append(elapsed)
            try await Task.sleep(for: .milliseconds(500))
        }
        let (open, total) = await slow.stop()
        let slowest = latencies.max() ?? .zero
        print(
            "HTTPServerTests: max /healthz latency \(slowest) over \(latencies.count) probes "
                + "with \(open)/\(total) slow connections still open")
        #expect(total == 50)
        #expect(open == 50, "the slow connections must really have been held open for the probes")
        // Blocked behind the slow clients a probe would wait for their 2 s header timeout; 1 s leaves room for load.
        #expect(slowest < .seconds(1))
    }

    @Test("A wildcard address serves IPv4 and IPv6 on one dual-stack socket", arguments: ["0.0.0.0", "::", "[::]"])
    func dualStack(address: String) async throws {
        let server = try HTTPServer(address: address, port: 0, handler: Self.handler)
        defer { server.shutdown() }
        #expect(server.port > 0)
        for host in ["127.0.0.1", "::1"] {
            let (response, _, _) = await onThread { rawRequest(host: host, port: server.port, path: "/healthz") }
            #expect(response?.status == 200, "over \(host)")
            #expect(response.map { String(decoding: $0.body, as: UTF8.self) } == "ok\n")
        }
    }

    @Test(
        "An IP literal binds that address family only",
        arguments: [
            ("::1", "::1", "127.0.0.1"), ("[::1]", "::1", "127.0.0.1"), ("127.0.0.1", "127.0.0.1", "::1"),
        ])
    func literalBindsOneFamily(address: String, served: String, refused: String) async throws {
        let server = try HTTPServer(address: address, port: 0, handler: Self.handler)
        defer { server.shutdown() }
        let (ok, _, _) = await onThread { rawRequest(host: served, port: server.port, path: "/healthz") }
        #expect(ok?.status == 200)
        let (none, _, _) = await onThread { rawRequest(host: refused, port: server.port, path: "/healthz") }
        #expect(none?.status == nil)
    }

    @Test("Responses: content type, no-store, Connection: close; HEAD has no body; a large body arrives whole")
    func responses() async throws {
        let server = try HTTPServer(address: "127.0.0.1", port: 0, handler: Self.handler)
        defer { server.shutdown() }
        let (get, closed, _) = await onThread { rawRequest(host: "127.0.0.1", port: server.port, path: "/healthz?x=1") }
        #expect(get?.status == 200)
        #expect(get?.headers["content-type"] == "text/plain; charset=utf-8")
        #expect(get?.headers["cache-control"] == "no-store")
        #expect(get?.headers["connection"]?.lowercased() == "close")
        #expect(closed)
        let (head, _, _) = await onThread {
            rawRequest(host: "127.0.0.1", port: server.port, method: "HEAD", path: "/healthz")
        }
        #expect(head?.status == 200)
        #expect(head?.body.isEmpty == true)
        let (big, _, _) = await onThread { rawRequest(host: "127.0.0.1", port: server.port, path: "/big") }
        #expect(big?.status == 200)
        #expect(big?.body.count == 320_000)
        let (missing, _, _) = await onThread { rawRequest(host: "127.0.0.1", port: server.port, path: "/nope") }
        #expect(missing?.status == 404)
    }

    @Test(
        "The default limits accept no body: Content-Length or chunked gets 413, the handler never runs",
        arguments: [
            "Content-Length: 5\r\n\r\nhello", "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
            "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        ])
    func defaultLimitsRefuseBodies(body: String) async throws {
        let calls = Calls()
        let server = try HTTPServer(address: "127.0.0.1", port: 0) { request in
            calls.record(request)
            return .init(status: 200, body: "ok\n")
        }
        defer { server.shutdown() }
        let request = Array("POST /healthz HTTP/1.1\r\nHost: t\r\n\(body)".utf8)
        let (rejected, closed, _) = await onThread { rawRequest(host: "127.0.0.1", port: server.port, request) }
        #expect(rejected?.status == 413)
        #expect(closed)
        let (empty, _, _) = await onThread {
            rawRequest(host: "127.0.0.1", port: server.port, Array("POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n".utf8))
        }
        #expect(empty?.status == 200, "an empty body is no body")
        #expect(calls.all.count == 1)
        #expect(calls.all.first?.body == [])
    }

    @Test("An oversized request head is refused (431/414/413 or closed), never served")
    func oversizedRequest() async throws {
        let server = try HTTPServer(address: "127.0.0.1", port: 0, handler: Self.handler)
        defer { server.shutdown() }
        let header = "X-Big: " + String(repeating: "a", count: 16 * 1024)
        let request = Array("GET /healthz HTTP/1.1\r\nHost: t\r\n\(header)\r\n\r\n".utf8)
        let (response, closed, _) = await onThread { rawRequest(host: "127.0.0.1", port: server.port, request) }
        #expect(closed)
        if let response { #expect([413, 414, 431].contains(response.status)) }
        let longURL = "/healthz?" + String(repeating: "q", count: 16 * 1024)
        let (url, _, _) = await onThread { rawRequest(host: "127.0.0.1", port: server.port, path: longURL) }
        if let url { #expect([413, 414, 431].contains(url.status)) }
    }

    @Test("A client still sending slowly is cut off at the connection deadline; an idle one at the idle timeout")
    func deadlines() async throws {
        let limits = HTTPServer.Limits(idleTimeout: .seconds(1), connectionDeadline: .seconds(2))
        let server = try HTTPServer(address: "127.0.0.1", port: 0, limits: limits, handler: Self.handler)
        defer { server.shutdown() }
        let slowFor = await onThread { () -> Duration? in
            guard let socket = RawSocket(host: "127.0.0.1", port: server.port) else { return nil }
            let started = ContinuousClock.now
            for byte in "GET /healthz HTTP/1.1\r\nX-Slow: ".utf8.prefix(20) {
                guard socket.send([byte]), !socket.isClosedByPeer else { return ContinuousClock.now - started }
                Thread.sleep(forTimeInterval: 0.25)
            }
            return nil
        }
        print("HTTPServerTests: slow client cut off after \(slowFor.map { "\($0)" } ?? "never")")
        let slow = try #require(slowFor)
        #expect(slow >= .milliseconds(1900) && slow < .milliseconds(4500))  // all 20 bytes would take 5 s

        let idleFor = await onThread { () -> Duration? in
            guard let socket = RawSocket(host: "127.0.0.1", port: server.port) else { return nil }
            let started = ContinuousClock.now
            let (_, closed) = socket.readUntilClosed(timeout: .seconds(4))
            return closed ? ContinuousClock.now - started : nil
        }
        let idle = try #require(idleFor)
        #expect(idle >= .milliseconds(900) && idle < .milliseconds(3500))  // never closed: nil after 4 s
    }

    @Test("Bind failures carry errno; addresses that are not IP literals and bad limits have their own codes")
    func startErrors() async throws {
        let first = try HTTPServer(address: "0.0.0.0", port: 0, handler: Self.handler)
        defer { first.shutdown() }
        for address in ["0.0.0.0", "127.0.0.1", "::1"] {
            let error = #expect(throws: HTTPServerError.self) {
                try HTTPServer(address: address, port: first.port, handler: Self.handler)
            }
            #expect(error?.code == .bindFailed, "\(address)")
            #expect(error?.errno == EADDRINUSE, "\(address)")
            #expect(error.map { "\($0)" }?.contains("Address already in use") == true, "\(address)")
        }
        let foreign = #expect(throws: HTTPServerError.self) {
            try HTTPServer(address: "192.0.2.1", port: 0, handler: Self.handler)
        }
        #expect(foreign?.code == .bindFailed)
        #expect(foreign?.errno == EADDRNOTAVAIL)
        for address in ["localhost", "", "300.1.1.1", "1.2.3.4.5"] {
            let error = #expect(throws: HTTPServerError.self) {
                try HTTPServer(address: address, port: 0, handler: Self.handler)
            }
            #expect(error?.code == .invalidAddress, "\(address)")
            #expect(error?.errno == nil)
            if !address.isEmpty { #expect(error.map { "\($0)" }?.contains(address) == false, "the address is echoed") }
        }
        #expect(throws: HTTPServerError.self) { try HTTPServer(address: "::1", port: 65_536, handler: Self.handler) }
        let limits = [
            HTTPServer.Limits(maxConnections: 0), HTTPServer.Limits(maxConnectionsPerAddress: 300),
            HTTPServer.Limits(idleTimeout: .milliseconds(500)), HTTPServer.Limits(memoryPerConnection: 100),
            HTTPServer.Limits(threads: 0), HTTPServer.Limits(maxRequestBodyBytes: -1),
        ]
        for limit in limits {
            let error = #expect(throws: HTTPServerError.self) {
                try HTTPServer(address: "127.0.0.1", port: 0, limits: limit, handler: Self.handler)
            }
            #expect(error?.code == .invalidLimits, "\(limit)")
        }
    }

    @Test("shutdown closes the port and may be called twice")
    func shutdown() async throws {
        let server = try HTTPServer(address: "::1", port: 0, handler: Self.handler)
        let port = server.port
        server.shutdown()
        server.shutdown()
        let (response, _, _) = await onThread { rawRequest(host: "::1", port: port, path: "/healthz") }
        #expect(response?.status == nil)
    }
}
