import Dispatch
import Foundation
import HTTPServer
import Synchronization
import TestSupport
import Testing

/// The HTTP server's deferred answers (what the gateway builds on): a handler answers through its responder, at once
/// or later from another thread while no server thread waits; a lost responder answers 500; the ticket lives until
/// the request ended; shutdown answers every waiting request; a client that left does not hurt the server.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct HTTPServerDeferredTests {
    /// A ticket that counts how many of its kind are alive.
    final class Ticket: Sendable {
        static let alive = Atomic<Int>(0)
        init() { Self.alive.add(1, ordering: .relaxed) }
        deinit { Self.alive.subtract(1, ordering: .relaxed) }
    }

    /// Answers `/now` at once, `/later?ms` from a queue after ms, `/lost` never (drops the responder), `/wait` only
    /// when the test releases it; refuses `/refuse` from the head.
    final class Service: Sendable {
        let queue = DispatchQueue(label: "deferred-test", attributes: .concurrent)
        let parked = Mutex<[HTTPServer.Responder]>([])

        func admit(_ head: HTTPServer.Request) -> HTTPServer.HeadDecision<Ticket> {
            head.path == "/refuse"
                ? .respond(.init(status: 429, headers: ["Retry-After": "1"], body: "busy\n")) : .proceed(Ticket())
        }

        func respond(_ request: HTTPServer.Request, _ ticket: Ticket, _ responder: HTTPServer.Responder) {
            switch request.path {
            case "/now":
                responder.send(.init(status: 200, body: "now \(request.body.count)\n"))
            case "/later":
                let ms = Int(request.query ?? "0") ?? 0
                queue.asyncAfter(deadline: .now() + .milliseconds(ms)) {
                    withExtendedLifetime(ticket) { responder.send(.init(status: 202, body: "later\n")) }
                    responder.send(.init(status: 500, body: "a second answer is ignored\n"))
                }
            case "/wait":
                parked.withLock { $0.append(responder) }
            default:
                break  // the responder is dropped unanswered
            }
        }
    }

    static func start(_ service: Service, threads: Int = 1) throws -> HTTPServer {
        var limits = HTTPServer.Limits(threads: threads)
        limits.maxRequestBodyBytes = 1024
        return try HTTPServer(
            address: "127.0.0.1", port: 0, limits: limits, admit: service.admit, respond: service.respond)
    }

    @Test("At once, later from another thread (one server thread serves others meanwhile), lost → 500, refused → 429")
    func answers() async throws {
        let service = Service()
        let server = try Self.start(service, threads: 1)
        defer { server.shutdown() }
        let port = server.port
        let slow = Task {
            await onThread { rawRequest(host: "127.0.0.1", port: port, path: "/later?800", timeout: .seconds(5)) }
        }
        try await Task.sleep(for: .milliseconds(100))
        let quick = await onThread { rawRequest(host: "127.0.0.1", port: port, path: "/now") }
        #expect(quick.response?.status == 200)
        #expect(quick.elapsed < .milliseconds(500), "the one server thread is not waiting for the slow answer")
        let later = await slow.value
        #expect(later.response?.status == 202)
        #expect(later.response.map { String(decoding: $0.body, as: UTF8.self) } == "later\n")
        #expect(await onThread { rawRequest(host: "127.0.0.1", port: port, path: "/lost") }.response?.status == 500)
        let refused = await onThread { rawRequest(host: "127.0.0.1", port: port, path: "/refuse") }
        #expect(refused.response?.status == 429)
        #expect(refused.response?.headers["retry-after"] == "1")
        #expect(
            await eventually(timeout: .seconds(3)) { Ticket.alive.load(ordering: .relaxed) == 0 },
            "tickets end with their requests")
    }

    @Test("Shutdown answers the waiting requests; a client gone while waiting leaves nothing behind")
    func shutdownAndGoneClients() async throws {
        let service = Service()
        let server = try Self.start(service, threads: 2)
        let port = server.port
        // A client that sends its request and leaves while the answer is pending.
        _ = await onThread {
            RawSocket(host: "127.0.0.1", port: port)?.send(Array("GET /later?300 HTTP/1.1\r\nHost: t\r\n\r\n".utf8))
        }
        let waiting = (0..<3).map { _ in
            // Parked until the shutdown answers them: the timeout only bounds a defect, never a slow machine.
            Task { await onThread { rawRequest(host: "127.0.0.1", port: port, path: "/wait", timeout: .seconds(30)) } }
        }
        #expect(await eventually(timeout: .seconds(3)) { service.parked.withLock { $0.count } == 3 })
        try await Task.sleep(for: .milliseconds(500))
        #expect(server.waitingRequests == 3, "the gone client's request was answered and released")
        server.stopAccepting()
        let refused = await onThread { rawRequest(host: "127.0.0.1", port: port, path: "/now", timeout: .seconds(1)) }
        #expect(refused.response == nil, "no new connection after stopAccepting")
        server.shutdown(answeringWaitingWith: .init(status: 503, headers: ["Retry-After": "2"], body: "stopping\n"))
        for task in waiting {
            let answer = await task.value
            #expect(answer.response?.status == 503)
            #expect(answer.response?.headers["retry-after"] == "2")
        }
        service.parked.withLock { $0.forEach { $0.send(.init(status: 200, body: "too late\n")) } }
        #expect(server.waitingRequests == 0)
        #expect(await eventually(timeout: .seconds(3)) { Ticket.alive.load(ordering: .relaxed) == 0 })
    }

    @Test("An answer decided just before the stop is sent whole: the stop neither replaces it nor cuts it off")
    func answerDecidedBeforeStop() async throws {
        let service = Service()
        let server = try Self.start(service, threads: 1)
        let port = server.port
        // Bigger than the socket buffers of both ends together: the answer is still being written when the stop
        // begins, because the client reads nothing until then.
        let size = 24 << 20
        let received = await onThread { () -> (status: Int?, bodyBytes: Int, refused: Bool) in
            guard let client = RawSocket(host: "127.0.0.1", port: port) else { return (nil, 0, false) }
            client.send(Array("GET /wait HTTP/1.1\r\nHost: t\r\n\r\n".utf8))
            let end = ContinuousClock.now + .seconds(10)
            while service.parked.withLock({ $0.isEmpty }), ContinuousClock.now < end { usleep(2_000) }
            service.parked.withLock { $0.first }?.send(.init(status: 200, body: [UInt8](repeating: 0x61, count: size)))
            // The first bytes of the answer arrived: it is decided and on its way.
            var pfd = pollfd(fd: client.fd, events: Int16(POLLIN), revents: 0)
            _ = poll(&pfd, 1, 10_000)
            let stopped = DispatchSemaphore(value: 0)
            Thread {
                server.shutdown()
                stopped.signal()
            }.start()
            // The old stop closed the listening socket at once, answers unwritten or not; a stop that waits for the
            // decided answer keeps it open until it went out. Read once the listener is gone, or after 500 ms.
            var refused = false
            let probeEnd = ContinuousClock.now + .milliseconds(500)
            while ContinuousClock.now < probeEnd {
                guard RawSocket(host: "127.0.0.1", port: port) != nil else {
                    refused = true
                    break
                }
                usleep(10_000)
            }
            let (bytes, _) = client.readUntilClosed(timeout: .seconds(10))
            let response = RawHTTPResponse(bytes)
            stopped.wait()
            return (response?.status, response?.body.count ?? 0, refused)
        }
        #expect(received.status == 200)
        #expect(received.bodyBytes == size, "the whole answer, not cut off by the stop (refused: \(received.refused))")
    }
}
