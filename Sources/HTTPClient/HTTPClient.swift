import Essentials
import Synchronization

/// An HTTP/1.1 and HTTP/2 client over libcurl: a fixed set of kept-alive connections, each an easy handle on its own
/// serial queue, so blocking transfers never run on Swift's cooperative pool. A request goes to the connection with
/// the fewest requests in flight.
///
/// The only code that imports `CCurl`.
public final class HTTPClient: Sendable {
    public let configuration: HTTPClientConfiguration
    private let connections: [QueueConfined<CurlEasy?>]
    /// Requests queued or running per connection.
    private let inFlight: Mutex<[Int]>

    /// Creates the client's connections (they connect lazily, on their first request).
    /// - Throws: ``HTTPClientError`` (`usage`) for an invalid configuration, or when libcurl rejects an option
    ///   (e.g. a TLS feature this libcurl lacks).
    public init(_ configuration: HTTPClientConfiguration) throws {
        try configuration.validate()
        self.configuration = configuration
        connections = try (0..<configuration.maxConnections).map { index in
            QueueConfined(label: "dvp.http-client.\(index)", try CurlEasy(configuration))
        }
        inFlight = Mutex(Array(repeating: 0, count: configuration.maxConnections))
    }

    /// Sends `request` and returns the final response, whatever its status.
    /// - Throws: ``HTTPClientError`` when no complete response arrived (connect failure, timeout, TLS, a closed
    ///   client) or its body exceeded ``HTTPClientConfiguration/maxResponseBytes`` (`tooLarge`).
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let index = inFlight.withLock { counts in
            let index = counts.indices.min { counts[$0] < counts[$1] }!
            counts[index] += 1
            return index
        }
        defer { inFlight.withLock { $0[index] -= 1 } }
        return try await connections[index].run { easy in
            guard let easy else { throw HTTPClientError(.usage, "the HTTP client is closed") }
            return try easy.perform(request)
        }
    }

    /// Closes every connection once its queued requests are done; later requests throw `usage`.
    public func close() async {
        for connection in connections {
            _ = try? await connection.run { easy in easy = nil }
        }
    }
}
