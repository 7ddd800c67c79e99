import Foundation
import HTTPClient

/// Reads a FHIR server's whole Observation history (`Observation/_history`, every page) to count stale overwrites:
/// versions of one resource whose event version tag is lower than the version before it.
enum FHIRHistory {
    static let versionTag = "https://fhir.example.org/CodeSystem/daily-values-pipeline/event-version"

    /// The number of stale overwrites, and the number of versions read.
    static func staleOverwrites(baseURL: String) async throws -> (decreases: Int, versions: Int) {
        let http = try HTTPClient(HTTPClientConfiguration())
        var byID: [String: [(versionId: Int, event: Int64)]] = [:]
        var next: String? = baseURL + "/Observation/_history?_count=500"
        var versions = 0
        while let url = next {
            let response = try await http.send(
                HTTPRequest(method: "GET", url: url, headers: [("Accept", "application/fhir+json")]))
            guard response.status == 200,
                let bundle = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
            else { throw HistoryError(message: "GET \(url): \(response.status) \(response.text.prefix(300))") }
            for entry in bundle["entry"] as? [[String: Any]] ?? [] {
                guard let resource = entry["resource"] as? [String: Any], let id = resource["id"] as? String,
                    let meta = resource["meta"] as? [String: Any],
                    let versionId = (meta["versionId"] as? String).flatMap({ Int($0) })
                else { continue }
                let tags = meta["tag"] as? [[String: Any]] ?? []
                let event = tags.first { $0["system"] as? String == versionTag }
                    .flatMap { $0["code"] as? String }.flatMap { Int64($0) } ?? 0
                byID[id, default: []].append((versionId, event))
                versions += 1
            }
            let links = bundle["link"] as? [[String: Any]] ?? []
            next = links.first { $0["relation"] as? String == "next" }?["url"] as? String
        }
        var decreases = 0
        for (_, history) in byID {
            let ordered = history.sorted { $0.versionId < $1.versionId }
            for (before, after) in zip(ordered, ordered.dropFirst()) where after.event < before.event { decreases += 1 }
        }
        return (decreases, versions)
    }

    struct HistoryError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}
