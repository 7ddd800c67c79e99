import Essentials
import HTTPClient
import Hashing
import JSON
import StoreCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The FHIR store's HTTP layer: every request carries the FHIR media types and the authorization, every write
/// `Prefer: return=minimal` and `X-Meta-Snapshot-Mode: TAG`; throttling (429/503) waits as long as `Retry-After`
/// says, a 401 refreshes the token once, and the failures the store cannot decide per record become ``StoreError``s.
struct FHIRRestClient: Sendable {
    let http: HTTPClient
    let token: FHIRAccessToken
    let configuration: FHIRStoreConfiguration

    /// Sends a request to `path` (relative to the base URL, or absolute; "" is the base itself, for Bundles) and
    /// returns a response whose status is 2xx, 3xx or a 4xx other than 401/403/429 (the caller decides those per
    /// record or per call). `headers` are added to the request (`Cache-Control: no-cache` for the erasure's reads:
    /// HAPI serves a repeated search from its cache for a minute).
    /// - Throws: ``StoreError``: `connection` for network failures and 5xx answers, `timeout`, `busy` when throttling
    ///   outlasted ``FHIRStoreConfiguration/throttleAttempts``, `unauthorized` for 401/403, `usage` for TLS or URL
    ///   problems, `query` for a response above ``HTTPClientConfiguration/maxResponseBytes``.
    func send(
        _ method: String, _ path: String, body: [UInt8]? = nil, ifMatch: String? = nil,
        headers extra: [(name: String, value: String)] = []
    ) async throws -> HTTPResponse {
        let url: String
        if path.hasPrefix("http://") || path.hasPrefix("https://") {
            // An absolute URL from the server (a Bundle's `next` link) gets our credentials only on our own base:
            // a link to another host or scheme would hand the token to whoever it names.
            guard path.hasPrefix(configuration.baseURL + "/") || path.hasPrefix(configuration.baseURL + "?") else {
                throw StoreError(
                    .query,
                    "the FHIR server linked to \(Redaction.withoutQuery(path)), outside the base "
                        + "\(Redaction.withoutQuery(configuration.baseURL)): not followed")
            }
            url = path
        } else {
            url = path.isEmpty ? configuration.baseURL : configuration.baseURL + "/" + path
        }
        var throttled = 0
        var refreshedToken = false
        while true {
            var headers: [(name: String, value: String)] = [("Accept", "application/fhir+json")] + extra
            if body != nil {
                // HAPI carries a copy's old tags into an update unless tags are a snapshot: without the header a
                // copy would collect every event version it was ever written at.
                headers += [
                    ("Content-Type", "application/fhir+json"), ("Prefer", "return=minimal"),
                    ("X-Meta-Snapshot-Mode", "TAG"),
                ]
            }
            if let ifMatch { headers.append(("If-Match", #"W/""# + ifMatch + #"""#)) }
            if let authorization = try await token.header() { headers.append(("Authorization", authorization)) }
            let response: HTTPResponse
            do {
                response = try await http.send(HTTPRequest(method: method, url: url, headers: headers, body: body))
            } catch let error as HTTPClientError {
                throw Self.storeError(error, method: method, url: url)
            }
            switch response.status {
            case 401 where !refreshedToken:
                refreshedToken = true
                await token.invalidate()
            case 401, 403:
                throw StoreError(
                    .unauthorized, nativeCode: String(response.status),
                    "\(method) \(Redaction.withoutQuery(url)): the FHIR server refused the credentials: "
                        + Self.answerSummary(response))
            case 429, 503:
                throttled += 1
                guard throttled < configuration.throttleAttempts else {
                    throw StoreError(
                        .busy, nativeCode: String(response.status),
                        "\(method) \(Redaction.withoutQuery(url)): still throttled after \(throttled) attempts: "
                            + Self.answerSummary(response))
                }
                try await Task.sleep(for: retryAfter(response))
            case 500...:
                throw StoreError(
                    .connection, nativeCode: String(response.status),
                    "\(method) \(Redaction.withoutQuery(url)): \(Self.answerSummary(response))")
            default:
                return response
            }
        }
    }

    /// How long a 429/503 asks to wait: `Retry-After` in seconds or as an HTTP date, capped at
    /// ``FHIRStoreConfiguration/maxRetryAfter``; one second when absent.
    func retryAfter(_ response: HTTPResponse) -> Duration {
        let cap = configuration.maxRetryAfter
        guard let value = response.header("retry-after")?.trimmingWhitespace() else {
            return min(.seconds(1), cap)
        }
        if let seconds = Double(value) { return min(.milliseconds(Int64(max(seconds, 0) * 1000)), cap) }
        guard let date = HTTPDate.secondsSince1970(value) else { return min(.seconds(1), cap) }
        let wait = Date(timeIntervalSince1970: Double(date)).timeIntervalSinceNow
        return min(.milliseconds(Int64(max(wait, 0) * 1000)), cap)
    }

    // MARK: - Errors

    static func storeError(_ error: HTTPClientError, method: String, url: String) -> StoreError {
        let code: StoreError.Code =
            switch error.code {
            case .connection, .other: .connection
            case .timeout: .timeout
            case .tls, .usage: .usage
            case .tooLarge: .query
            }
        return StoreError(
            code, nativeCode: error.curlCode.map { "curl \($0)" },
            "\(method) \(Redaction.withoutQuery(url)): \(error.message)")
    }

    /// What a log or an error may say of a server's answer: its status, the OperationOutcome's issue codes (FHIR's
    /// fixed vocabulary) and a SHA-256 of the body, never the body's text (a 5xx outcome may name the patient or
    /// echo a value). Only a refused record's dead letter carries the text (``outcomeText(_:)``).
    static func answerSummary(_ response: HTTPResponse) -> String {
        let json = JSONValue.anyValue(response.body)
        return "HTTP \(response.status)\(issueCodes(json)), body sha256 \(SHA256.hex(response.body))"
    }

    /// ``answerSummary(_:)`` for a Bundle entry's `response.outcome`: its issue codes and a SHA-256 of it.
    static func outcomeSummary(_ json: Any?) -> String {
        guard let json, json is [String: Any] || json is [Any], let value = JSONValue(any: json) else {
            return "no outcome"
        }
        return "outcome" + issueCodes(json) + ", sha256 \(SHA256.hex(value.serialized()))"
    }

    /// `, issue code a, b` for an OperationOutcome's issue codes, or "".
    private static func issueCodes(_ json: Any?) -> String {
        let issues = (json as? [String: Any])?["issue"] as? [[String: Any]] ?? []
        let codes = issues.compactMap { vocabularyWord($0["code"]) }
        return codes.isEmpty ? "" : ", issue code " + codes.prefix(5).joined(separator: ", ")
    }

    /// `value` when it is shaped like a word of a fixed vocabulary (FHIR's issue codes, OAuth2's error codes):
    /// 1-40 lowercase letters, hyphens and underscores; nil for anything else, which could be free text.
    static func vocabularyWord(_ value: Any?) -> String? {
        guard let word = value as? String, (1...40).contains(word.count),
            word.allSatisfy({ ("a"..."z").contains($0) || $0 == "-" || $0 == "_" })
        else { return nil }
        return word
    }

    /// The text of a parsed OperationOutcome, if `json` is one with text.
    static func outcomeText(_ json: Any?) -> String? {
        guard let outcome = json as? [String: Any], let issues = outcome["issue"] as? [[String: Any]] else {
            return nil
        }
        let texts = issues.compactMap { issue -> String? in
            let text = (issue["details"] as? [String: Any])?["text"] as? String ?? issue["diagnostics"] as? String
            let expression = (issue["expression"] as? [String])?.joined(separator: ", ")
            guard let text else { return nil }
            guard let expression else { return text }
            return "\(expression): \(text)"
        }
        return texts.isEmpty ? nil : texts.joined(separator: "; ")
    }
}
