/// A request that got no HTTP response: what kind of failure, libcurl's `CURLcode`, and its message.
///
/// An HTTP error status is not an `HTTPClientError`: the caller gets the ``HTTPResponse`` and decides.
public struct HTTPClientError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The host name did not resolve, or the TCP connection could not be made or was lost mid-request.
        case connection
        /// The connect or the whole request took longer than its timeout; whether a write took effect is unknown.
        case timeout
        /// TLS failed: the peer's certificate did not verify, or the CA bundle or client certificate/key is unusable.
        case tls
        /// The response body exceeded ``HTTPClientConfiguration/maxResponseBytes``; the transfer was aborted.
        case tooLarge
        /// The URL or an option was rejected, or the client was closed.
        case usage
        /// Another libcurl failure.
        case other
    }

    public var code: Code
    /// libcurl's `CURLcode`, when the failure came from libcurl.
    public var curlCode: Int32?
    public var message: String

    public init(_ code: Code, curlCode: Int32? = nil, _ message: String) {
        self.code = code
        self.curlCode = curlCode
        self.message = message
    }

    /// True for failures worth retrying with backoff (network, timeouts); TLS and usage errors need a fix first.
    public var isRetriable: Bool { code == .connection || code == .timeout || code == .other }

    public var description: String {
        "HTTP \(code.rawValue) error" + (curlCode.map { " [curl \($0)]" } ?? "") + ": \(message)"
    }
}
