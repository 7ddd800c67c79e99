import DailyValueContract
import HTTPServer
import JSON

/// An error answer of the gateway as an RFC 9457 problem document (`application/problem+json`): `type`, `title`,
/// `status`, `detail`, and for refused records `errors`, one entry per record at fault. Its text names fields,
/// rules, positions and counts, never a token, a secret, a health value or a patient id.
struct IngestProblem: Error, Sendable {
    /// One record at fault.
    struct RecordError: Sendable {
        /// The record's position in the request (0-based: the array index, or the n-th non-blank line).
        var index: Int
        /// The line the record starts on (1-based).
        var line: Int
        /// A JSON Pointer (RFC 6901) into the record itself, e.g. `/unit` or `/source/model`; empty for the whole.
        var pointer: String
        /// The decoder's class name (`InvalidUnit`, …) or the gateway's (`OutOfScope`, `MalformedArray`).
        var reasonClass: String
        /// The decoder's own reason.
        var reason: String
    }

    var status: Int
    /// The last part of the `type` URI (`urn:dvp:ingest:<slug>`).
    var slug: String
    var title: String
    var detail: String
    var headers: HTTPServer.Headers = [:]
    var errors: [RecordError] = []

    /// The `Content-Type` of every problem answer.
    static let contentType = "application/problem+json"

    /// The answer: the problem document with its status and headers.
    var response: HTTPServer.Response {
        HTTPServer.Response(status: status, contentType: Self.contentType, headers: headers, body: body)
    }

    /// The document's bytes.
    var body: [UInt8] {
        JSONWriter.bytes(capacity: 256 + errors.count * 160) { json in
            json.beginObject()
            json.member("type", "urn:dvp:ingest:" + slug)
            json.member("title", title)
            json.key("status")
            json.value(Int64(status))
            json.member("detail", detail)
            if !errors.isEmpty {
                json.key("errors")
                json.beginArray()
                for error in errors {
                    json.beginObject()
                    json.key("index")
                    json.value(Int64(error.index))
                    json.key("line")
                    json.value(Int64(error.line))
                    json.member("pointer", error.pointer)
                    json.member("class", error.reasonClass)
                    json.member("reason", error.reason)
                    json.endObject()
                }
                json.endArray()
            }
            json.endObject()
        }
    }

    /// The JSON Pointer of a decoder field path (`source.model` → `/source/model`; empty → the whole record).
    static func pointer(field: String) -> String {
        guard !field.isEmpty else { return "" }
        return field.split(separator: ".", omittingEmptySubsequences: false).map { part in
            "/" + part.replacing("~", with: "~0").replacing("/", with: "~1")
        }.joined()
    }
}

// MARK: - The gateway's problems

extension IngestProblem {
    /// 404 naming what is served: `detail` says where to go instead.
    static func notFound(_ detail: String = "try POST /v1/daily-values (the probes and /metrics are on the admin port)")
        -> Self
    {
        Self(status: 404, slug: "not-found", title: "Not Found", detail: detail)
    }

    static func methodNotAllowed(allow: String) -> Self {
        Self(
            status: 405, slug: "method-not-allowed", title: "Method Not Allowed", detail: "use \(allow)",
            headers: ["Allow": allow])
    }

    static func unauthorized(_ detail: String, wwwAuthenticate: String) -> Self {
        Self(
            status: 401, slug: "unauthorized", title: "Unauthorized", detail: detail,
            headers: ["WWW-Authenticate": wwwAuthenticate])
    }

    static func unsupportedMediaType(_ detail: String, headers: HTTPServer.Headers) -> Self {
        Self(
            status: 415, slug: "unsupported-media-type", title: "Unsupported Media Type", detail: detail,
            headers: headers)
    }

    static func malformed(_ detail: String, errors: [RecordError] = []) -> Self {
        Self(status: 400, slug: "malformed-request", title: "Bad Request", detail: detail, errors: errors)
    }

    static func tooLarge(_ detail: String) -> Self {
        Self(status: 413, slug: "too-large", title: "Content Too Large", detail: detail)
    }

    /// 413 for a body of more than `maxRecords` records (counted only up to the first one past it).
    static func tooManyRecords(_ maxRecords: Int) -> Self {
        tooLarge("the body holds more than \(maxRecords) records (--max-records)")
    }

    static func tooManyRequests(_ detail: String) -> Self {
        Self(
            status: 429, slug: "too-many-requests", title: "Too Many Requests", detail: detail,
            headers: ["Retry-After": "1"])
    }

    static func unavailable(_ detail: String, retryAfterSeconds: Int = 2) -> Self {
        Self(
            status: 503, slug: "unavailable", title: "Service Unavailable", detail: detail,
            headers: ["Retry-After": String(retryAfterSeconds)])
    }
}
