import FHIRServerStore
import Foundation
import HTTPClient
import StoreCore
import Synchronization
import TestSupport
import Testing

/// The libcurl client against real local servers (the FHIR double, a closed port, a server that never answers).
@Suite(.timeLimit(.minutes(1)))
struct HTTPClientTests {
    @Test func statusHeadersAndBodyOfEveryAnswerComeBack() async throws {
        let double = try await FHIRDouble()
        let client = try HTTPClient(HTTPClientConfiguration())
        try await double.set(["throttle": 1, "retry_after": "0.5"])
        let throttled = try await client.send(HTTPRequest(method: "GET", url: double.baseURL + "/metadata"))
        #expect(throttled.status == 429)
        #expect(throttled.header("Retry-After") == "0.5", "\(throttled.headers)")
        #expect(throttled.header("content-type") == "application/fhir+json")
        let ok = try await client.send(HTTPRequest(method: "GET", url: double.baseURL + "/metadata"))
        #expect(ok.status == 200 && ok.text.contains("CapabilityStatement") && ok.httpVersion == "1.1")
        let missing = try await client.send(HTTPRequest(method: "GET", url: double.rootURL + "/nothing"))
        #expect(missing.status == 404)
        await client.close()
        await #expect(throws: HTTPClientError.self) {
            _ = try await client.send(HTTPRequest(method: "GET", url: double.baseURL + "/metadata"))
        }
    }

    /// One kept-alive connection per easy handle: many requests, few TCP connections.
    @Test func connectionsAreKeptAliveAndReused() async throws {
        let double = try await FHIRDouble()
        var configuration = HTTPClientConfiguration()
        configuration.maxConnections = 2
        let client = try HTTPClient(configuration)
        for _ in 0..<20 {
            let response = try await client.send(HTTPRequest(method: "GET", url: double.baseURL + "/metadata"))
            #expect(response.status == 200)
        }
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<10 {
                group.addTask {
                    try await client.send(HTTPRequest(method: "GET", url: double.baseURL + "/metadata")).status
                }
            }
            for try await status in group { #expect(status == 200) }
        }
        let connections = try #require(try await double.stats()["connections"])
        #expect(connections >= 1 && connections <= 3, "\(connections) connections for 30 requests")
    }

    @Test func aClosedPortIsARetriableConnectionError() async throws {
        let client = try HTTPClient(HTTPClientConfiguration())
        let port = try FreePort.pick()
        let error = await #expect(throws: HTTPClientError.self) {
            _ = try await client.send(HTTPRequest(method: "GET", url: "http://127.0.0.1:\(port)/"))
        }
        #expect(error?.code == .connection && error?.isRetriable == true && error?.curlCode == 7)
    }

    /// The request timeout ends the transfer and closes its connection. Nothing here depends on how soon a loaded
    /// machine schedules a thread: a client that ignored the setting could not answer before the 30 s default, and
    /// one that kept the timed-out connection would never let the server see its end while it lives.
    @Test func aServerThatNeverAnswersTimesOut() async throws {
        let listener = try SilentListener()
        var configuration = HTTPClientConfiguration()
        configuration.requestTimeout = .milliseconds(300)
        let client = try HTTPClient(configuration)
        let started = ContinuousClock.now
        let error = await #expect(throws: HTTPClientError.self) {
            _ = try await client.send(HTTPRequest(method: "GET", url: "http://127.0.0.1:\(listener.port)/"))
        }
        let elapsed = ContinuousClock.now - started
        #expect(error?.code == .timeout && error?.curlCode == 28)
        #expect(elapsed < HTTPClientConfiguration().requestTimeout, "answered after \(elapsed)")
        let closed = await eventually(timeout: .seconds(20)) { listener.clientHasClosed() }
        #expect(closed, "the client kept the timed-out connection open")
        withExtendedLifetime(client) {}  // alive until here: its deinit would close any connection it kept
    }

    /// TLS verification is always on: an unknown CA fails as `tls` (not retriable); the CA bundle option trusts it.
    @Test func tlsVerifiesThePeerAndTakesACABundle() async throws {
        let certificates = try await TestCertificates()
        let double = try await FHIRDouble(tls: certificates)
        let url = double.baseURL + "/metadata"
        let untrusting = try HTTPClient(HTTPClientConfiguration())
        let error = await #expect(throws: HTTPClientError.self) {
            _ = try await untrusting.send(HTTPRequest(method: "GET", url: url))
        }
        #expect(error?.code == .tls && error?.isRetriable == false, "\(String(describing: error))")
        var configuration = HTTPClientConfiguration()
        configuration.caBundlePath = certificates.authority
        let trusting = try HTTPClient(configuration)
        #expect(try await trusting.send(HTTPRequest(method: "GET", url: url)).status == 200)
    }

    /// Mutual TLS: a server that requires a client certificate refuses a client without one and serves one with it.
    @Test func mutualTLSSendsTheClientCertificate() async throws {
        let certificates = try await TestCertificates()
        let double = try await FHIRDouble(tls: certificates, requireClientCertificate: true)
        let url = double.baseURL + "/metadata"
        var anonymous = HTTPClientConfiguration()
        anonymous.caBundlePath = certificates.authority
        await #expect(throws: HTTPClientError.self) {
            _ = try await HTTPClient(anonymous).send(HTTPRequest(method: "GET", url: url))
        }
        var mutual = anonymous
        mutual.clientCertificatePath = certificates.clientCertificate
        mutual.clientKeyPath = certificates.clientKey
        #expect(try await HTTPClient(mutual).send(HTTPRequest(method: "GET", url: url)).status == 200)
    }

    /// HTTP/2 when the server offers it over TLS (ALPN): nghttpd (Debian's nghttp2-server) speaks only h2.
    @Test func http2IsNegotiatedWhenTheServerOffersIt() async throws {
        let certificates = try await TestCertificates()
        let htdocs = try TestEnvironment.temporaryDirectory("nghttpd")
        defer { try? FileManager.default.removeItem(at: htdocs) }
        try #"{"resourceType":"CapabilityStatement"}"#.write(
            to: htdocs.appendingPathComponent("metadata"), atomically: true, encoding: .utf8)
        let port = try FreePort.pick()
        let server = try ChildProcess(
            "/usr/sbin/nghttpd",
            ["-a", "127.0.0.1", "-d", htdocs.path, "\(port)", certificates.serverKey, certificates.serverCertificate])
        var configuration = HTTPClientConfiguration()
        configuration.caBundlePath = certificates.authority
        let client = try HTTPClient(configuration)
        let request = HTTPRequest(method: "GET", url: "https://127.0.0.1:\(port)/metadata")
        var response: HTTPResponse?
        for _ in 0..<50 where response == nil {
            response = try? await client.send(request)
            if response == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        let answer = try #require(response, "nghttpd did not answer: \(server.stderr)")
        #expect(answer.status == 200 && answer.httpVersion == "2", "\(answer.status) over HTTP/\(answer.httpVersion)")
        #expect(answer.text.contains("CapabilityStatement"))
    }

    /// A body above `maxResponseBytes` aborts the transfer with `tooLarge`: one sent chunked (the size shows only
    /// as it arrives) and one whose `Content-Length` is refused up front. The connection stays usable.
    @Test func aResponseAboveTheBoundIsAbortedWithATypedError() async throws {
        let double = try await FHIRDouble()
        var configuration = HTTPClientConfiguration()
        configuration.maxResponseBytes = 100_000
        let client = try HTTPClient(configuration)
        try await double.set(["big_metadata": 1_000_000])
        let chunked = await #expect(throws: HTTPClientError.self) {
            _ = try await client.send(HTTPRequest(method: "GET", url: double.baseURL + "/metadata"))
        }
        #expect(chunked?.code == .tooLarge && chunked?.isRetriable == false, "\(String(describing: chunked))")
        try await double.set(["big_metadata": 50_000])
        let within = try await client.send(HTTPRequest(method: "GET", url: double.baseURL + "/metadata"))
        #expect(within.status == 200 && within.body.count > 50_000)
        configuration.maxResponseBytes = 100
        let tiny = try HTTPClient(configuration)
        let declared = await #expect(throws: HTTPClientError.self) {
            _ = try await tiny.send(HTTPRequest(method: "GET", url: double.rootURL + "/_stats"))
        }
        #expect(declared?.code == .tooLarge && declared?.curlCode == 63, "\(String(describing: declared))")
        // The FHIR store reports it as a store error naming the bound.
        try await double.set(["big_metadata": 1_000_000])
        var fhir = FHIRStoreConfiguration(baseURL: double.baseURL)
        fhir.http.maxResponseBytes = 100_000
        let store = await #expect(throws: StoreError.self) { _ = try await FHIRObservationStore(configuration: fhir) }
        #expect(store?.code == .query && store?.message.contains("maxResponseBytes") == true)
    }

    @Test func invalidConfigurationsAreRefused() {
        var configuration = HTTPClientConfiguration()
        configuration.clientCertificatePath = "/tmp/cert.pem"
        #expect(throws: HTTPClientError.self) { try HTTPClient(configuration) }
        configuration = HTTPClientConfiguration()
        configuration.maxConnections = 0
        #expect(throws: HTTPClientError.self) { try HTTPClient(configuration) }
        configuration = HTTPClientConfiguration()
        configuration.maxResponseBytes = 0
        #expect(throws: HTTPClientError.self) { try HTTPClient(configuration) }
    }
}

/// A TCP listener on 127.0.0.1 that never answers: the kernel completes a client's handshake and queues the
/// connection; ``clientHasClosed()`` accepts it and reads, without blocking, whether the client has ended it.
final class SilentListener: Sendable {
    let port: Int
    private let fd: Int32
    private let connection = Mutex<Int32>(-1)

    init() throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let fd = fd
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 16) == 0, fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == 0 else {
            throw TestSetupError("cannot listen: errno \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether the first client's connection has reached its end (FIN or reset), its request read and dropped;
    /// false while it is open or before any client connected.
    func clientHasClosed() -> Bool {
        connection.withLock { connection in
            if connection < 0 { connection = accept(fd, nil, nil) }
            guard connection >= 0 else { return false }
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = recv(connection, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                if count > 0 { continue }
                return count == 0 || errno == ECONNRESET
            }
        }
    }

    deinit {
        connection.withLock { if $0 >= 0 { close($0) } }
        close(fd)
    }
}
