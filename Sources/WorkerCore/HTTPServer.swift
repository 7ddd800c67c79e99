import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A tiny HTTP/1.1 server for `/metrics`, `/healthz` and `/readyz`, on its own thread (no cooperative pool).
///
/// It answers `GET` requests one connection at a time with `Connection: close`; that is all probes and Prometheus
/// scrapes need, and it keeps the worker free of an HTTP dependency.
public final class HTTPServer: Sendable {
    public struct Response: Sendable {
        public var status: Int
        public var contentType: String
        public var body: String

        public init(status: Int, contentType: String = "text/plain; charset=utf-8", body: String) {
            self.status = status
            self.contentType = contentType
            self.body = body
        }
    }

    public typealias Handler = @Sendable (_ path: String) -> Response

    private let listenFD: Int32
    private let stopping = Atomic<Bool>(false)
    private let handler: Handler
    /// The bound port (useful with port 0).
    public let port: Int

    /// Binds `address:port` (port 0 picks a free one) and starts serving on a dedicated thread.
    /// - Throws: `WorkerError.configuration` when the socket cannot be bound.
    public init(address: String, port: Int, handler: @escaping Handler) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw WorkerError.configuration("http: socket() failed: errno \(errno)") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, address, &addr.sin_addr) == 1 else {
            close(fd)
            throw WorkerError.configuration("http: '\(address)' is not an IPv4 address")
        }
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            let code = errno
            close(fd)
            throw WorkerError.configuration("http: cannot listen on \(address):\(port): \(String(cString: strerror(code)))")
        }
        var actual = sockaddr_in()
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        self.listenFD = fd
        self.port = Int(UInt16(bigEndian: actual.sin_port))
        self.handler = handler
        let thread = Thread { [self] in self.serve() }
        thread.name = "dvp-http"
        thread.start()
    }

    /// Stops accepting connections; the thread exits within ~200 ms.
    public func shutdown() {
        stopping.store(true, ordering: .releasing)
    }

    private func serve() {
        defer { close(listenFD) }
        while !stopping.load(ordering: .acquiring) {
            var pfd = pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 200) > 0 else { continue }
            let client = accept(listenFD, nil, nil)
            guard client >= 0 else { continue }
            handle(client)
            close(client)
        }
    }

    private func handle(_ fd: Int32) {
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 4096)
        var received = 0
        while received < buffer.count {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + received, $0.count - received, 0) }
            guard n > 0 else { break }
            received += n
            if buffer[..<received].firstRange(of: [13, 10, 13, 10]) != nil { break }
        }
        let requestLine = String(decoding: buffer[..<received].prefix { $0 != 13 && $0 != 10 }, as: UTF8.self)
        let parts = requestLine.split(separator: " ")
        let response: Response
        if parts.count >= 2, parts[0] == "GET" || parts[0] == "HEAD" {
            let path = String(parts[1].split(separator: "?", maxSplits: 1).first ?? "")
            response = handler(path)
        } else {
            response = Response(status: 405, body: "method not allowed\n")
        }
        let reason = [200: "OK", 404: "Not Found", 405: "Method Not Allowed", 503: "Service Unavailable"][response.status]
            ?? "Status"
        let body = Array(response.body.utf8)
        let head = "HTTP/1.1 \(response.status) \(reason)\r\nContent-Type: \(response.contentType)\r\n"
            + "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        var out = Array(head.utf8)
        if parts.first != "HEAD" { out += body }
        var sent = 0
        while sent < out.count {
            let n = out.withUnsafeBytes { send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { break }
            sent += n
        }
    }
}
