/// How an ``HTTPClient`` connects: timeouts, TLS material, connection count and the `User-Agent`.
///
/// TLS peer and host verification are always on; ``caBundlePath`` replaces the system's CA bundle, and a client
/// certificate with its key enables mutual TLS.
public struct HTTPClientConfiguration: Sendable, Hashable {
    /// The limit on establishing one connection (DNS, TCP and TLS handshakes).
    public var connectTimeout: Duration = .seconds(10)
    /// The limit on one whole request, connect included.
    public var requestTimeout: Duration = .seconds(30)
    /// A PEM file of CA certificates to verify the server with, instead of the system's bundle.
    public var caBundlePath: String?
    /// A PEM client certificate for mutual TLS (needs ``clientKeyPath``).
    public var clientCertificatePath: String?
    /// The PEM private key of ``clientCertificatePath``.
    public var clientKeyPath: String?
    /// How many connections (each kept alive and reused) requests are spread over; each runs one request at a time.
    public var maxConnections: Int = 4
    /// The largest response body accepted (after decoding any `Content-Encoding`); a larger one aborts the transfer
    /// with ``HTTPClientError/Code/tooLarge``. Default 64 MiB.
    public var maxResponseBytes: Int = 64 << 20
    /// The `User-Agent` header of every request.
    public var userAgent: String = "daily-values-pipeline"

    public init() {}

    /// Checks the combination of settings.
    /// - Throws: ``HTTPClientError`` (`usage`) naming the setting that is wrong.
    public func validate() throws {
        guard maxConnections >= 1 else { throw HTTPClientError(.usage, "maxConnections must be at least 1") }
        guard connectTimeout > .zero, requestTimeout > .zero else {
            throw HTTPClientError(.usage, "the connect and request timeouts must be positive")
        }
        guard maxResponseBytes >= 1 else { throw HTTPClientError(.usage, "maxResponseBytes must be at least 1") }
        if (clientCertificatePath == nil) != (clientKeyPath == nil) {
            throw HTTPClientError(.usage, "a client certificate needs its key and a key its certificate (mutual TLS)")
        }
    }
}
