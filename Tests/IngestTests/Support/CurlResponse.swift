import Foundation
import TestSupport

/// One answer as curl (a real HTTP client) received it: status, header fields (names lower-cased) and body.
struct CurlResponse: Sendable {
    var status: Int
    var headers: [String: String]
    var body: Data
    /// How long the exchange took by curl's own clock (`time_total`: from its start of the transfer to the end),
    /// which a loaded machine's process start-up does not lengthen.
    var seconds: Double = 0

    var text: String { String(decoding: body, as: UTF8.self) }
    /// The body as a JSON object, or nil.
    var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] }
    /// The `errors` of a problem document.
    var errors: [[String: Any]] { json?["errors"] as? [[String: Any]] ?? [] }
    /// The `receipts` of a 202.
    var receipts: [[String: Any]] { json?["receipts"] as? [[String: Any]] ?? [] }
    var contentType: String { headers["content-type"] ?? "" }

    /// Runs `curl -sS` with `arguments` (the URL among them), writing head and body to files in `directory`.
    /// - Throws: `TestSetupError` when curl fails (no answer at all).
    static func run(_ arguments: [String], directory: URL) async throws -> CurlResponse {
        let tag = UUID().uuidString.prefix(8)
        let head = directory.appendingPathComponent("curl-\(tag).head")
        let body = directory.appendingPathComponent("curl-\(tag).body")
        defer {
            try? FileManager.default.removeItem(at: head)
            try? FileManager.default.removeItem(at: body)
        }
        let result = try await runCommand(
            "/usr/bin/curl",
            ["-sS", "--max-time", "60", "-D", head.path, "-o", body.path, "-w", "%{http_code} %{time_total}"] + arguments)
        let written = result.stdout.split(separator: " ")
        guard result.status == 0, written.count == 2, let status = Int(written[0]), let seconds = Double(written[1])
        else {
            throw TestSetupError("curl \(arguments.joined(separator: " ")) failed: \(result.stderr)")
        }
        // The last head block counts (after any `100 Continue`).
        let blocks = ((try? String(contentsOf: head, encoding: .utf8)) ?? "").components(separatedBy: "\r\n\r\n")
        var headers: [String: String] = [:]
        for line in (blocks.last { !$0.isEmpty } ?? "").components(separatedBy: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        return CurlResponse(
            status: status, headers: headers, body: (try? Data(contentsOf: body)) ?? Data(), seconds: seconds)
    }

    /// `curl` arguments of a POST of `file` to the gateway's ingest path.
    static func post(_ url: String, file: URL, contentType: String = "application/json", headers: [String] = [])
        -> [String]
    {
        ["-X", "POST", "-H", "Content-Type: \(contentType)", "--data-binary", "@\(file.path)"]
            + headers.flatMap { ["-H", $0] } + ["\(url)/v1/daily-values"]
    }
}
