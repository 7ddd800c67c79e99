import HTTPServer

/// How a POST body is written, from its head: a JSON array or JSON lines (`Content-Type`), gzip or not
/// (`Content-Encoding`). Anything else is 415 before the body is read.
struct IngestBodyFormat: Sendable, Hashable {
    enum Framing: String, Sendable, Hashable {
        /// `application/json`: one JSON array whose elements are the events.
        case array
        /// `application/x-ndjson` (or `application/ndjson`): one event per line.
        case lines
    }

    var framing: Framing
    var gzip: Bool

    /// The media types each framing is sent as, for `Accept-Post` and messages.
    static let acceptedTypes = "application/json, application/x-ndjson"

    /// The format a request's head announces.
    /// - Throws: ``IngestProblem`` 415 naming what is not accepted (with `Accept-Post` or `Accept-Encoding`).
    init(headers: HTTPServer.Headers) throws(IngestProblem) {
        guard let contentType = headers["Content-Type"] else {
            throw Self.refusedType("a Content-Type is required: \(Self.acceptedTypes)")
        }
        let parts = contentType.split(separator: ";").map { $0.trimmingSpaces.lowercased() }
        switch parts.first ?? "" {
        case "application/json": framing = .array
        case "application/x-ndjson", "application/ndjson", "application/jsonl": framing = .lines
        default: throw Self.refusedType("the Content-Type is not one of \(Self.acceptedTypes)")
        }
        for parameter in parts.dropFirst() where parameter.hasPrefix("charset=") {
            let charset = parameter.dropFirst("charset=".count).replacing("\"", with: "")
            guard charset == "utf-8" || charset == "utf8" else {
                throw Self.refusedType("the body must be UTF-8 (charset=utf-8)")
            }
        }
        let codings = headers.values(for: "Content-Encoding").flatMap { $0.split(separator: ",") }
            .map { $0.trimmingSpaces.lowercased() }.filter { $0 != "identity" }
        switch codings {
        case []: gzip = false
        case ["gzip"], ["x-gzip"]: gzip = true
        default:
            throw IngestProblem.unsupportedMediaType(
                "the Content-Encoding is not accepted: send gzip or none", headers: ["Accept-Encoding": "gzip"])
        }
    }

    private static func refusedType(_ detail: String) -> IngestProblem {
        .unsupportedMediaType(detail, headers: ["Accept-Post": acceptedTypes])
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs (HTTP's optional whitespace).
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
