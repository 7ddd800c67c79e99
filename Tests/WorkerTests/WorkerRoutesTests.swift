
import HTTPServer
import Observability
import TestSupport
import Testing
@testable import WorkerCore

/// The worker's routes on a real server, wired as `WorkerService` wires them: methods are the routes' choice.
@Suite("Worker routes", .serialized)
struct WorkerRoutesTests {
    static func serve() throws -> HTTPServer {
        let health = WorkerHealth()
        let metrics = Metrics()
        let statistics = ConsumerStatisticsReporter(health: health, metrics: metrics)
        let routes = WorkerRoutes(health: health, metrics: metrics, statistics: statistics)
        return try HTTPServer(
            address: "127.0.0.1", port: 0, beforeBody: { routes.admit($0) }, handler: { routes.respond(to: $0) })
    }

    @Test(
        "Methods other than GET and HEAD get 405 with Allow, before any body",
        arguments: ["POST", "PUT", "DELETE", "OPTIONS", "PATCH"])
    func methodNotAllowed(method: String) async throws {
        let server = try Self.serve()
        defer { server.shutdown() }
        let (response, _, _) = await onThread {
            rawRequest(host: "127.0.0.1", port: server.port, method: method, path: "/healthz")
        }
        #expect(response?.status == 405)
        #expect(response?.headers["allow"] == "GET, HEAD")
        let withBody = Array("\(method) /metrics HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello".utf8)
        let (refused, _, _) = await onThread { rawRequest(host: "127.0.0.1", port: server.port, withBody) }
        #expect(refused?.status == 405, "the method is refused first, as before the server had its own target")
    }

    @Test("GET and HEAD are served; a GET with a body gets 413; other paths 404")
    func served() async throws {
        let server = try Self.serve()
        defer { server.shutdown() }
        let port = server.port
        let (healthz, _, _) = await onThread { rawRequest(host: "127.0.0.1", port: port, path: "/healthz?probe=1") }
        #expect(healthz?.status == 200)
        #expect(healthz.map { String(decoding: $0.body, as: UTF8.self) } == "ok\n")
        #expect(healthz?.headers["cache-control"] == "no-store")
        let (metrics, _, _) = await onThread {
            rawRequest(host: "127.0.0.1", port: port, method: "HEAD", path: "/metrics")
        }
        #expect(metrics?.status == 200)
        #expect(metrics?.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
        #expect(metrics?.body.isEmpty == true)
        let withBody = Array("GET /healthz HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello".utf8)
        let (refused, _, _) = await onThread { rawRequest(host: "127.0.0.1", port: port, withBody) }
        #expect(refused?.status == 413)
        let (missing, _, _) = await onThread { rawRequest(host: "127.0.0.1", port: port, path: "/nope") }
        #expect(missing?.status == 404)
    }
}
