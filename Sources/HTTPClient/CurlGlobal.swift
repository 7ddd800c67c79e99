import CCurl

/// libcurl's process-wide initialisation, done once before the first handle (`curl_global_init` is not thread-safe
/// against itself; a `static let` initialiser runs exactly once).
enum CurlGlobal {
    static let initialised: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    /// Initialises libcurl if needed.
    /// - Throws: ``HTTPClientError`` when `curl_global_init` failed.
    static func ensure() throws {
        guard initialised == CURLE_OK else {
            throw HTTPClientError(.other, curlCode: Int32(initialised.rawValue), "curl_global_init failed")
        }
    }
}
