import CCurl
import Essentials

/// One libcurl easy handle, owned and freed here: one kept-alive connection (libcurl reuses it for the next request to
/// the same host, and negotiates HTTP/2 over TLS when the server offers it). Not thread-safe: it lives on one
/// connection's serial queue (see ``HTTPClient``), where ``perform(_:)`` blocks.
final class CurlEasy {
    private let handle: UnsafeMutableRawPointer
    /// libcurl writes a failed transfer's detailed message here (`CURLOPT_ERRORBUFFER`).
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private let requestTimeoutMilliseconds: Int
    private let maxResponseBytes: Int

    /// Creates a handle with the options every request shares.
    /// - Throws: ``HTTPClientError`` when libcurl cannot be initialised or rejects an option.
    init(_ configuration: HTTPClientConfiguration) throws {
        try CurlGlobal.ensure()
        guard let handle = curl_easy_init() else { throw HTTPClientError(.other, "curl_easy_init failed") }
        self.handle = handle
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        requestTimeoutMilliseconds = Int(clamping: configuration.requestTimeout.milliseconds)
        maxResponseBytes = configuration.maxResponseBytes
        try set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errorBuffer))
        try set(CURLOPT_NOSIGNAL, 1)  // no SIGALRM for DNS timeouts: we run on many threads
        try set(CURLOPT_PROTOCOLS_STR, "http,https")
        try set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        try set(CURLOPT_TCP_KEEPALIVE, 1)
        try set(CURLOPT_SSL_VERIFYPEER, 1)
        try set(CURLOPT_SSL_VERIFYHOST, 2)
        try set(CURLOPT_ACCEPT_ENCODING, "")  // every encoding this libcurl decodes
        try set(CURLOPT_CONNECTTIMEOUT_MS, Int(clamping: configuration.connectTimeout.milliseconds))
        try set(CURLOPT_TIMEOUT_MS, requestTimeoutMilliseconds)
        try set(CURLOPT_USERAGENT, configuration.userAgent)
        // Refuses a declared Content-Length above the bound before the body; the write callback bounds the rest.
        try check(dvp_curl_setopt_offset(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(maxResponseBytes)))
        if let path = configuration.caBundlePath { try set(CURLOPT_CAINFO, path) }
        if let path = configuration.clientCertificatePath { try set(CURLOPT_SSLCERT, path) }
        if let path = configuration.clientKeyPath { try set(CURLOPT_SSLKEY, path) }
        try setCallbacks()
    }

    deinit {
        curl_easy_cleanup(handle)
        errorBuffer.deallocate()
    }

    /// Sends `request` and waits for the whole response (blocking, bounded by the request timeout).
    /// - Throws: ``HTTPClientError`` when no complete response arrived.
    func perform(_ request: HTTPRequest) throws -> HTTPResponse {
        try prepare(request)
        var list: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(list) }
        for (name, value) in request.headers {
            // A CR or LF would end the header line and start another: refused, naming the header, never its value.
            guard !(name + value).utf8.contains(where: { $0 == 0x0D || $0 == 0x0A }) else {
                throw HTTPClientError(.usage, "the \(name) header holds a line break: refused (header injection)")
            }
            // "Name;" sends a header with an empty value; "Name:" would remove it.
            list = curl_slist_append(list, value.isEmpty ? "\(name);" : "\(name): \(value)")
        }
        // No `Expect: 100-continue` round trip before a large body.
        if request.body != nil { list = curl_slist_append(list, "Expect:") }
        try check(dvp_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, list))
        defer { _ = dvp_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, nil) }

        let sink = ResponseSink(limit: maxResponseBytes)
        let context = Unmanaged.passUnretained(sink).toOpaque()
        try set(CURLOPT_WRITEDATA, pointer: context)
        try set(CURLOPT_HEADERDATA, pointer: context)
        errorBuffer[0] = 0
        let code = withExtendedLifetime(sink) { curl_easy_perform(handle) }
        guard code == CURLE_OK else {
            guard sink.exceeded || code == CURLE_FILESIZE_EXCEEDED else { throw failure(code) }
            throw HTTPClientError(
                .tooLarge, curlCode: Int32(code.rawValue),
                "\(request.method) \(Redaction.withoutQuery(request.url)): the response exceeds \(maxResponseBytes) bytes (maxResponseBytes)")
        }
        return HTTPResponse(
            status: info(CURLINFO_RESPONSE_CODE), headers: sink.headers, body: sink.body,
            httpVersion: Self.versionName(info(CURLINFO_HTTP_VERSION)))
    }

    // MARK: - Per-request options

    private func prepare(_ request: HTTPRequest) throws {
        try set(CURLOPT_URL, request.url)
        try set(CURLOPT_NOBODY, request.method == "HEAD" ? 1 : 0)
        if let body = request.body {
            try set(CURLOPT_POST, 1)
            try check(dvp_curl_setopt_offset(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)))
            // COPYPOSTFIELDS copies the bytes now, so the body need not outlive this call.
            try body.withUnsafeBytes { bytes in
                try check(
                    dvp_curl_setopt_pointer(
                        handle, CURLOPT_COPYPOSTFIELDS,
                        UnsafeMutableRawPointer(
                            mutating: bytes.baseAddress ?? UnsafeRawPointer(("" as StaticString).utf8Start))))
            }
        } else {
            try set(CURLOPT_HTTPGET, 1)
        }
        let standard = request.body == nil ? ["GET", "HEAD"] : ["POST"]
        if standard.contains(request.method) {
            try check(dvp_curl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, nil))
        } else {
            try set(CURLOPT_CUSTOMREQUEST, request.method)
        }
    }

    private func setCallbacks() throws {
        try check(
            dvp_curl_setopt_write_callback(handle, CURLOPT_WRITEFUNCTION) { data, size, count, context in
                let length = size * count
                guard let data, let context, length > 0 else { return length }
                let sink = Unmanaged<ResponseSink>.fromOpaque(context).takeUnretainedValue()
                guard sink.body.count + length <= sink.limit else {
                    sink.exceeded = true
                    return 0  // anything but `length` aborts the transfer (CURLE_WRITE_ERROR)
                }
                sink.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: length))
                return length
            })
        try check(
            dvp_curl_setopt_write_callback(handle, CURLOPT_HEADERFUNCTION) { data, size, count, context in
                let length = size * count
                guard let data, let context, length > 0 else { return length }
                let sink = Unmanaged<ResponseSink>.fromOpaque(context).takeUnretainedValue()
                sink.headerLine(UnsafeRawBufferPointer(start: data, count: length))
                return length
            })
    }

    // MARK: - Options and errors

    private func set(_ option: CURLoption, _ value: Int) throws {
        try check(dvp_curl_setopt_long(handle, option, value))
    }

    private func set(_ option: CURLoption, _ value: String) throws {
        try check(dvp_curl_setopt_string(handle, option, value))  // libcurl copies strings
    }

    private func set(_ option: CURLoption, pointer: UnsafeMutableRawPointer) throws {
        try check(dvp_curl_setopt_pointer(handle, option, pointer))
    }

    private func info(_ key: CURLINFO) -> Int {
        var value = 0
        _ = dvp_curl_getinfo_long(handle, key, &value)
        return value
    }

    private func check(_ code: CURLcode) throws {
        guard code == CURLE_OK else { throw failure(code) }
    }

    private func failure(_ code: CURLcode) -> HTTPClientError {
        let detail = String(cString: errorBuffer)
        let message = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
        return HTTPClientError(Self.errorCode(code), curlCode: Int32(code.rawValue), message)
    }

    /// The class of a libcurl failure.
    static func errorCode(_ code: CURLcode) -> HTTPClientError.Code {
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT, CURLE_SEND_ERROR,
            CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE, CURLE_HTTP2, CURLE_HTTP2_STREAM,
            CURLE_WEIRD_SERVER_REPLY:
            return .connection
        case CURLE_OPERATION_TIMEDOUT:
            return .timeout
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_CRL_BADFILE, CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            return .tls
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL, CURLE_BAD_FUNCTION_ARGUMENT, CURLE_UNKNOWN_OPTION,
            CURLE_NOT_BUILT_IN:
            return .usage
        default:
            return .other
        }
    }

    private static func versionName(_ version: Int) -> String {
        switch version {
        case Int(CURL_HTTP_VERSION_1_0): return "1.0"
        case Int(CURL_HTTP_VERSION_1_1): return "1.1"
        case Int(CURL_HTTP_VERSION_2_0): return "2"
        case Int(CURL_HTTP_VERSION_3): return "3"
        default: return "unknown"
        }
    }
}

/// Collects one transfer's headers and body from libcurl's callbacks (same thread, during `curl_easy_perform`).
private final class ResponseSink {
    var headers: [(name: String, value: String)] = []
    var body: [UInt8] = []
    /// The most body bytes accepted; `exceeded` is set when the server sent more.
    let limit: Int
    var exceeded = false

    init(limit: Int) { self.limit = limit }

    /// One header line: a status line starts a new response (after a `100 Continue` or similar), so earlier
    /// headers are dropped.
    func headerLine(_ bytes: UnsafeRawBufferPointer) {
        let line = String(decoding: bytes, as: UTF8.self)
        if line.hasPrefix("HTTP/") {
            headers.removeAll()
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].lowercased()
        let value = line[line.index(after: colon)...].trimmingWhitespace()
        headers.append((name, value))
    }
}
