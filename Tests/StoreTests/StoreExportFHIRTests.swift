import DailyValueContract
import Foundation
import HTTPClient
import ObservationMapping
import StoreCore
import TestSupport
import Testing

/// Exported files as a FHIR platform takes them: both validators pass on the NDJSON, and loading the files into
/// sekmet-fhir (its batch API stands in for `$import`) yields exactly the store's resources.
struct StoreExportFHIRTests {
    /// The mapper's Observations of every metric and special day into `store`: a third replaced, one retracted.
    static func fill(_ store: any ObservationStore) async throws {
        // One per resource id: some samples share patient, metric and day, so their id too.
        var records = Dictionary(
            try ObservationSamples.records().sorted { $0.key < $1.key }.map { ($0.value.resourceID, $0.value) },
            uniquingKeysWith: { first, _ in first }
        ).values.sorted { $0.resourceID < $1.resourceID }
        _ = try await store.upsert(records)
        records = records.enumerated().filter { $0.offset % 3 == 0 }.map {
            var r = $0.element; r.version += 1; return r
        }
        _ = try await store.upsert(records)
        _ = try await store.upsert([
            .retraction(identity: records[0].identity, version: 99, resourceID: records[0].resourceID, reason: "test")
        ])
    }

    @Test(.timeLimit(.minutes(3)), arguments: StoreKind.databases)
    func exportedFilesPassBothValidatorsAndLoadIntoAFHIRServerAsStored(kind: StoreKind) async throws {
        try await TestStores.withFreshStore(kind) { store, _ in
            try await Self.fill(store)
            let stored = try await StoreExportTests.storedResources(store)
            let directory = try TestEnvironment.temporaryDirectory("dvp-export-fhir")
            defer { try? FileManager.default.removeItem(at: directory) }
            let files = NDJSONFileSet(directory: directory, resourceType: "Observation", maxFileBytes: 20_000)
            let box = FileSetBox(files)
            _ = try await #require(store as? any ObservationExporting).exportObservations(since: nil, chunkSize: 5) {
                for observation in $0 { try box.files.append(observation.resource) }
            }
            let written = try files.finish()
            #expect(written.count > 1)

            try MetricCatalog.builtin.exportJSON().write(to: directory.appendingPathComponent("metric-catalog.json"))
            let (status, output) = try await FHIRValidationTests.validate(directory)
            #expect(status == 0, "\(output)")
            #expect(output.contains("\(stored.count)/\(stored.count) valid"), "\(output)")

            let server = try await TestFHIRServer(validation: .strict)
            let http = try HTTPClient(HTTPClientConfiguration())
            for file in written {
                let text = try String(contentsOf: directory.appendingPathComponent(file.url), encoding: .utf8)
                try await Self.load(text.split(separator: "\n").map(String.init), into: server.baseURL, http)
            }
            var loaded = 0
            for resource in stored.values {
                let expected = try Self.withoutServerMeta(resource)
                let id = try #require(expected["id"] as? String)
                let response = try await http.send(
                    HTTPRequest(method: "GET", url: server.baseURL + "/Observation/" + id))
                #expect(response.status == 200, "\(id): \(response.status)")
                let got = try Self.withoutServerMeta(response.text)
                #expect(
                    NSDictionary(dictionary: got).isEqual(to: expected),
                    "\(id):\n\(Self.sorted(got))\n\(Self.sorted(expected))")
                loaded += 1
            }
            let search = try await http.send(
                HTTPRequest(method: "GET", url: server.baseURL + "/Observation?_summary=count"))
            let total = try #require(try JSONSerialization.jsonObject(with: Data(search.body)) as? [String: Any])[
                "total"]
            #expect(total as? Int == stored.count && loaded == stored.count, "\(search.text)")
            await http.close()
            withExtendedLifetime(server) {}
        }
    }

    /// POSTs the resources as batch Bundles of `PUT Observation/{id}`; every entry must succeed.
    static func load(_ resources: [String], into base: String, _ http: HTTPClient) async throws {
        for start in stride(from: 0, to: resources.count, by: 25) {
            let entries = try resources[start..<min(start + 25, resources.count)].map { resource -> String in
                let id = try #require(try withoutServerMeta(resource)["id"] as? String)
                return #"{"resource":\#(resource),"request":{"method":"PUT","url":"Observation/\#(id)"}}"#
            }
            let bundle = #"{"resourceType":"Bundle","type":"batch","entry":[\#(entries.joined(separator: ","))]}"#
            let response = try await http.send(
                HTTPRequest(
                    method: "POST", url: base, headers: [("Content-Type", "application/fhir+json")],
                    body: Array(bundle.utf8)))
            #expect(response.status == 200, "\(response.status): \(response.text.prefix(2000))")
            let reply = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
            for entry in reply["entry"] as? [[String: Any]] ?? [] {
                let status = (entry["response"] as? [String: Any])?["status"] as? String ?? ""
                #expect(status.hasPrefix("200") || status.hasPrefix("201"), "\(entry)")
            }
        }
    }

    static func sorted(_ object: [String: Any]) -> String {
        String(
            decoding: (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data(),
            as: UTF8.self)
    }

    /// The resource without what a server assigns on its own: `meta.versionId` and `meta.lastUpdated`.
    static func withoutServerMeta(_ json: String) throws -> [String: Any] {
        var object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        var meta = object["meta"] as? [String: Any] ?? [:]
        meta["versionId"] = nil
        meta["lastUpdated"] = nil
        object["meta"] = meta.isEmpty ? nil : meta
        return object
    }
}

/// Lets the export's `@Sendable` chunk handler write to the file set: the store calls it one chunk at a time.
final class FileSetBox: @unchecked Sendable {
    let files: NDJSONFileSet
    init(_ files: NDJSONFileSet) { self.files = files }
}
