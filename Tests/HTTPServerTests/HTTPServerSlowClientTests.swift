import Foundation
import Synchronization
import TestSupport
import Testing

@testable import HTTPServer

/// Slow clients are cut off by what they are slow at: a head not whole within the head timeout (a slowloris), a
/// body below the minimum rate; each cut is counted by why and told to the observer. A quick client is untouched.
@Suite("HTTPServer slow clients", .serialized)
struct HTTPServerSlowClientTests {
    static let limits = HTTPServer.Limits(
        idleTimeout: .seconds(30), connectionDeadline: .seconds(30), headTimeout: .seconds(1),
        minimumBodyRate: 10_000, maxRequestBodyBytes: 1 << 20)

    /// The cuts the observer was told of.
    final class Seen: Sendable {
        let reasons = Mutex<[HTTPServer.CutReason]>([])
        var all: [HTTPServer.CutReason] { reasons.withLock { $0 } }
    }

    static func server(_ seen: Seen) throws -> HTTPServer {
        try HTTPServer(
            address: "127.0.0.1", port: 0, limits: limits,
            admit: { _ in HTTPServer.HeadDecision<Int>.proceed(0) },
            respond: { request, _, responder in responder.send(.init(status: 200, body: "\(request.body.count)\n")) },
            onCut: { reason in seen.reasons.withLock { $0.append(reason) } })
    }

    /// Sends `head` then `body` in `piece`-byte pieces every `interval`; returns when the server closed the
    /// connection (the time from the first byte), or nil when everything was sent first.
    static func drip(port: Int, head: [UInt8], body: [UInt8] = [], piece: Int, interval: Double) -> Duration? {
        guard let socket = RawSocket(host: "127.0.0.1", port: port) else { return nil }
        let started = ContinuousClock.now
        let bytes = head + body
        for start in stride(from: 0, to: bytes.count, by: piece) {
            guard socket.send(bytes[start..<min(start + piece, bytes.count)]), !socket.isClosedByPeer else {
                return ContinuousClock.now - started
            }
            Thread.sleep(forTimeInterval: interval)
        }
        return nil
    }

    @Test("A head dripped a byte every 100 ms is cut at the 1 s head timeout, counted slow-head")
    func slowHead() async throws {
        let seen = Seen()
        let server = try Self.server(seen)
        defer { server.shutdown() }
        let port = server.port
        let head = Array("GET / HTTP/1.1\r\nHost: t\r\nX-Slow: \(String(repeating: "a", count: 60))\r\n\r\n".utf8)
        let cutAfter = await onThread { Self.drip(port: port, head: head, piece: 1, interval: 0.1) }
        let cut = try #require(cutAfter, "all of the head was sent (8 s): never cut")
        #expect(cut >= Duration.milliseconds(900) && cut < Duration.seconds(4), "\(cut)")
        #expect(await eventually(timeout: .seconds(2)) { server.cuts[HTTPServer.CutReason.slowHead] == 1 })
        #expect(seen.all == [HTTPServer.CutReason.slowHead])
    }

    @Test("A body under 10,000 B/s is cut once the head timeout has passed since its head, counted slow-body")
    func slowBody() async throws {
        let seen = Seen()
        let server = try Self.server(seen)
        defer { server.shutdown() }
        let port = server.port
        let body = [UInt8](repeating: 0x41, count: 100_000)
        let head = Array("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: \(body.count)\r\n\r\n".utf8)
        // 500 B every 100 ms: 5,000 B/s, half the floor.
        let cutAfter = await onThread { Self.drip(port: port, head: head, body: body, piece: 500, interval: 0.1) }
        let cut = try #require(cutAfter, "the whole body was sent (20 s): never cut")
        #expect(cut >= Duration.milliseconds(900) && cut < Duration.seconds(5), "\(cut)")
        #expect(await eventually(timeout: .seconds(2)) { server.cuts[HTTPServer.CutReason.slowBody] == 1 })
        #expect(seen.all == [HTTPServer.CutReason.slowBody])
    }

    @Test("A quick client is never cut: a head at once and a body at 100 kB/s for 2 s")
    func quickClient() async throws {
        let seen = Seen()
        let server = try Self.server(seen)
        defer { server.shutdown() }
        let port = server.port
        let body = [UInt8](repeating: 0x41, count: 200_000)
        let head = Array("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: \(body.count)\r\n\r\n".utf8)
        let answer = await onThread { () -> RawHTTPResponse? in
            guard let socket = RawSocket(host: "127.0.0.1", port: port) else { return nil }
            socket.send(head)
            for start in stride(from: 0, to: body.count, by: 5_000) {
                socket.send(body[start..<start + 5_000])
                Thread.sleep(forTimeInterval: 0.05)
            }
            return RawHTTPResponse(socket.readUntilClosed(timeout: .seconds(5)).bytes)
        }
        #expect(answer?.status == 200)
        #expect(answer?.body == Array("200000\n".utf8))
        #expect(server.cuts.isEmpty)
        #expect(seen.all.isEmpty)
    }
}
