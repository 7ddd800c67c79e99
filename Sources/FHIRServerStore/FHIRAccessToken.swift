import Essentials
import HTTPClient
import JSON
import StoreCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The `Authorization` header value of the FHIR store's requests: none, a bearer token from a file (re-read when the
/// file changes), or an OAuth2 client-credentials token (cached until a minute, or a tenth of its lifetime, before
/// it expires).
actor FHIRAccessToken {
    private let authorization: FHIRAuthorization
    private let http: HTTPClient
    private var cached: (value: String, validUntil: ContinuousClock.Instant, stamp: FileStamp?)?
    /// The token request under way: callers that find no valid token while it runs wait for it instead of asking
    /// the endpoint again (the actor is reentrant across the request's `await`).
    private var fetching: Task<String, any Error>?

    init(_ authorization: FHIRAuthorization, http: HTTPClient) {
        self.authorization = authorization
        self.http = http
    }

    /// The header value, e.g. `Bearer abc`; nil without authorization.
    /// - Throws: ``StoreError`` (`unauthorized`) when the token file is unreadable, the token endpoint refuses, or
    ///   the token holds a control character (header injection).
    func header() async throws -> String? {
        switch authorization {
        case .none:
            return nil
        case .bearerTokenFile(let path):
            return "Bearer " + (try fileToken(path))
        case .clientCredentials(let grant):
            if let cached, ContinuousClock.now < cached.validUntil { return "Bearer " + cached.value }
            if let fetching { return "Bearer " + (try await fetching.value) }
            let fetch = Task { try await self.fetch(grant) }
            fetching = fetch
            defer { fetching = nil }
            return "Bearer " + (try await fetch.value)
        }
    }

    /// Forgets a cached token after the server answered 401 (revoked or expired early), so the next request
    /// fetches or re-reads one.
    func invalidate() { cached = nil }

    // MARK: - Token file

    private struct FileStamp: Equatable {
        var modified: Date?
        var size: Int?
    }

    private func fileToken(_ path: String) throws -> String {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        let stamp = FileStamp(
            modified: attributes?[.modificationDate] as? Date, size: attributes?[.size] as? Int)
        if let cached, cached.stamp == stamp { return cached.value }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw StoreError(.unauthorized, "cannot read the FHIR bearer token file \(path)")
        }
        let token = String(decoding: data, as: UTF8.self).trimmingWhitespace()
        guard !token.isEmpty else { throw StoreError(.unauthorized, "the FHIR bearer token file \(path) is empty") }
        try Self.check(token, from: "the FHIR bearer token file \(path)")
        cached = (token, .now + .seconds(365 * 86_400), stamp)
        return token
    }

    // MARK: - OAuth2 client credentials

    private func fetch(_ grant: OAuth2ClientCredentials) async throws -> String {
        var form = [
            ("grant_type", "client_credentials"), ("client_id", grant.clientID),
            ("client_secret", grant.clientSecret),
        ]
        if let scope = grant.scope { form.append(("scope", scope)) }
        let body = form.map { "\($0.0)=\(Self.formEncoded($0.1))" }.joined(separator: "&")
        let request = HTTPRequest(
            method: "POST", url: grant.tokenURL,
            headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")],
            body: Array(body.utf8))
        let response: HTTPResponse
        let endpoint = Redaction.withoutQuery(grant.tokenURL)
        do { response = try await http.send(request) } catch let error as HTTPClientError {
            throw StoreError(.connection, "OAuth2 token endpoint \(endpoint): \(error.message)")
        }
        guard (200..<300).contains(response.status),
            let json = JSONValue.anyObject(response.body),
            let token = json["access_token"] as? String, !token.isEmpty
        else {
            let code: StoreError.Code = response.status >= 500 ? .connection : .unauthorized
            // Not the body's text: a token endpoint's error may echo the request, the client secret included. Its
            // RFC 6749 error code (`invalid_client`, …) is a fixed word and says what to fix.
            let refusal = JSONValue.anyObject(response.body)
            let error = FHIRRestClient.vocabularyWord(refusal?["error"]).map { "error \($0), " } ?? ""
            throw StoreError(
                code, nativeCode: String(response.status),
                "OAuth2 token endpoint \(endpoint) gave no access token: \(error)"
                    + FHIRRestClient.answerSummary(response))
        }
        try Self.check(token, from: "the OAuth2 token endpoint \(endpoint)'s access token")
        let lifetime = (json["expires_in"] as? Double).map { Int64(exactly: $0.rounded(.down)) ?? 300 } ?? 300
        let margin = min(60, max(lifetime / 10, 1))
        cached = (token, .now + .seconds(max(lifetime - margin, 1)), nil)
        return token
    }

    /// Refuses a token that holds a control character (CR, LF, any byte below 0x20, or DEL): in a header it would
    /// end the `Authorization` line and inject headers of its own. The error names the source, never the token.
    private static func check(_ token: String, from source: String) throws {
        guard token.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x7F }) else {
            throw StoreError(
                .unauthorized,
                "\(source) holds a control character (CR, LF or another byte below 0x20, or DEL): refused, it "
                    + "would inject HTTP headers")
        }
    }

    private static func formEncoded(_ text: String) -> String {
        PercentEncoding.encoded(text)
    }
}
