import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

// Test helpers for the HTTP server's tests: raw TCP clients (Glibc sockets) that control every byte, slow ones too.
// Everything here blocks; tests call it through `onThread` so Swift's cooperative pool is never held up.

/// Runs blocking work on a dedicated thread and returns its result.
public func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        let thread = Thread { continuation.resume(returning: body()) }
        thread.name = "http-test-client"
        thread.start()
    }
}

/// One blocking TCP connection. Not shared between threads.
public final class RawSocket {
    public let fd: Int32

    /// Connects to `host` (an IP literal) and `port`; nil when the connection is refused.
    public init?(host: String, port: Int) {
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let info = found?.pointee else { return nil }
        defer { freeaddrinfo(found) }
        fd = socket(info.ai_family, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        guard connect(fd, info.ai_addr, info.ai_addrlen) == 0 else {
            close(fd)
            return nil
        }
    }

    deinit {
        close(fd)
    }

    /// Sends all of `bytes`; false when the peer is gone.
    @discardableResult
    public func send(_ bytes: some Collection<UInt8>) -> Bool {
        let bytes = Array(bytes)
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL))
            }
            guard n > 0 else { return false }
            sent += n
        }
        return true
    }

    /// Reads until the peer closes or `timeout` passes. `closed` is true for end-of-file or a reset.
    public func readUntilClosed(timeout: Duration) -> (bytes: [UInt8], closed: Bool) {
        let end = ContinuousClock.now + timeout
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let left = end - ContinuousClock.now
            guard left > .zero else { return (bytes, false) }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ms = Int32(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000) + 1
            guard poll(&pfd, 1, ms) > 0 else { continue }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return (bytes, true) }
            bytes += buffer[..<n]
        }
    }

    /// Whether the peer has closed the connection, without waiting.
    public var isClosedByPeer: Bool {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&pfd, 1, 0) > 0 else { return false }
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) <= 0
    }
}

/// A parsed HTTP/1.1 response.
public struct RawHTTPResponse: Sendable {
    public var status: Int
    /// Header names lowercased (the last of a repeated field).
    public var headers: [String: String]
    /// Every header field in order, names as sent.
    public var fields: [(name: String, value: String)]
    public var body: [UInt8]

    public init?(_ bytes: [UInt8]) {
        guard let split = bytes.firstRange(of: Array("\r\n\r\n".utf8)) else { return nil }
        let head = String(decoding: bytes[..<split.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let statusLine = head[0].split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
        self.status = status
        headers = [:]
        fields = []
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[line[..<colon].lowercased()] = value
            fields.append((name: String(line[..<colon]), value: value))
        }
        body = Array(bytes[split.upperBound...])
    }
}

/// Sends `request` on a fresh connection and reads the response until the server closes the connection.
/// Returns nil as response when the connection is refused or no response head arrives; `elapsed` covers
/// connect to close.
public func rawRequest(host: String, port: Int, _ request: some Collection<UInt8>, timeout: Duration = .seconds(3))
    -> (response: RawHTTPResponse?, closed: Bool, elapsed: Duration)
{
    let started = ContinuousClock.now
    guard let socket = RawSocket(host: host, port: port) else { return (nil, true, ContinuousClock.now - started) }
    socket.send(request)
    let (bytes, closed) = socket.readUntilClosed(timeout: timeout)
    return (RawHTTPResponse(bytes), closed, ContinuousClock.now - started)
}

/// `GET path` (or another method) as a client would send it, with `Connection: close`.
public func rawRequest(host: String, port: Int, method: String = "GET", path: String, timeout: Duration = .seconds(3))
    -> (response: RawHTTPResponse?, closed: Bool, elapsed: Duration)
{
    let request = "\(method) \(path) HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n"
    return rawRequest(host: host, port: port, Array(request.utf8), timeout: timeout)
}

/// Slowloris clients: each holds a connection open and sends the next byte of an endless request head every
/// `interval` from one background thread, until ``stop()``.
public final class SlowClients: Sendable {
    private let stopping = Atomic(false)
    private let done = Mutex<(open: Int, total: Int)?>(nil)
    private let finished = DispatchSemaphore(value: 0)

    /// Connects `count` clients to `host:port` and starts dripping.
    public init(count: Int, host: String, port: Int, interval: Duration) {
        let thread = Thread { [self] in
            let sockets = (0..<count).compactMap { _ in RawSocket(host: host, port: port) }
            let head = Array("GET /healthz HTTP/1.1\r\nX-Slow: ".utf8)
            var position = 0
            var alive = Array(repeating: true, count: sockets.count)
            while !stopping.load(ordering: .acquiring) {
                let byte = position < head.count ? head[position] : UInt8(ascii: "a")
                position += 1
                for (i, socket) in sockets.enumerated() where alive[i] {
                    alive[i] = socket.send([byte]) && !socket.isClosedByPeer
                }
                Thread.sleep(
                    forTimeInterval: Double(interval.components.seconds)
                        + Double(interval.components.attoseconds) / 1e18)
            }
            let open = zip(sockets, alive).filter { $0.1 && !$0.0.isClosedByPeer }.count
            done.withLock { $0 = (open, count) }
            finished.signal()
        }
        thread.name = "http-test-slowloris"
        thread.start()
    }

    /// Stops dripping, closes the connections and returns how many were still open (not closed by the server).
    public func stop() async -> (open: Int, total: Int) {
        stopping.store(true, ordering: .releasing)
        return await onThread { [self] in
            finished.wait()
            return done.withLock { $0 } ?? (0, 0)
        }
    }
}
