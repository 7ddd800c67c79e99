import CommandLineOptions
import DailyValueContract
import FHIRServerStore
import Foundation
import HTTPClient
import ObservationMapping
import StoreCore

/// `dvp-test-tools fhir-bench`: the FHIR store's throughput next to the same server's raw write rates, in one run:
/// plain `PUT Observation/{id}` one by one, unguarded `batch` Bundles of PUTs, then the store's version-guarded
/// upsert (one batch read + guarded writes) for new Observations, replaces and duplicates. With `--events` instead:
/// the store's rate for the worker's own Observations of those events (bench/fhir.sh compares the worker with it).
enum FHIRBench {
    static let usage =
        "fhir-bench --store fhir+http://HOST/BASE --batch B "
        + "(--records N | --events FILE [--upsert-batch U] [--bundles-in-flight K])"
    static let parser = CommandLineParser(
        [
            .value("--store", "S", help: "the FHIR store: fhir+http://… or fhir+https://…"),
            .value("--records", "N", help: "records per pass"),
            .value("--batch", "B", help: "records per upsert and per raw Bundle (1-500)"),
            .value(
                "--events", "FILE",
                help: "instead of the synthetic passes: the store's new-Observation rate for these DailyValue events, "
                    + "mapped as the worker maps them, on an empty server"),
            .value(
                "--upsert-batch", "U", help: "with --events: records per upsert call (default 1000, the worker's batch)"),
            .value(
                "--bundles-in-flight", "K", help: "with --events: Bundles in flight per upsert (default the store's)"),
        ], repeats: .rejected)

    static func run(_ arguments: ParsedCommandLine) async throws -> Int32 {
        guard case .fhir(let baseURL) = try RaceWriter.storeLocation(arguments) else {
            throw UsageError.invalid("--store", "must be a fhir+http:// or fhir+https:// location")
        }
        let batchSize = try arguments.requiredInteger("--batch", in: 1...FHIRStoreConfiguration.maxBatchSize)
        if let events = arguments.value("--events") {
            return try await insertEvents(events, baseURL: baseURL, batchSize: batchSize, arguments)
        }
        let count = try arguments.requiredInteger("--records", in: 1...1_000_000)
        let http = try HTTPClient(HTTPClientConfiguration())
        let headers: [(name: String, value: String)] = [
            ("Content-Type", "application/fhir+json"), ("Accept", "application/fhir+json"),
            ("Prefer", "return=minimal"),
        ]
        let system = FHIRStoreConfiguration.defaultVersionTagSystem
        let run = UUID().uuidString.prefix(6).lowercased()  // fresh ids on a server that already holds a run

        // The server's own rates: no read, no If-Match, nothing decided.
        let raw = UpsertBench.records(count: count, version: 1, prefix: "raw\(run)")
        try await measure("raw PUT (one request each)", count) {
            for record in raw {
                let body = FHIRBench.resource(record, system)
                let response = try await http.send(
                    HTTPRequest(method: "PUT", url: baseURL + "/Observation/" + record.resourceID, headers: headers,
                                body: body))
                guard (200..<300).contains(response.status) else { throw BenchError(message: "raw PUT: \(response.status)") }
            }
        }
        let rawBundles = { (label: String, prefix: String) in
            let bundled = UpsertBench.records(count: count, version: 1, prefix: prefix)
            try await measure(label, count) {
                for offset in stride(from: 0, to: count, by: batchSize) {
                    var body = Array(#"{"resourceType":"Bundle","type":"batch","entry":["#.utf8)
                    for (n, record) in bundled[offset..<min(offset + batchSize, count)].enumerated() {
                        if n > 0 { body.append(UInt8(ascii: ",")) }
                        body += Array(#"{"resource":"#.utf8) + FHIRBench.resource(record, system)
                        body += Array(#","request":{"method":"PUT","url":"Observation/\#(record.resourceID)"}}"#.utf8)
                    }
                    body += Array("]}".utf8)
                    let response = try await http.send(
                        HTTPRequest(method: "POST", url: baseURL, headers: headers, body: body))
                    guard response.status == 200 else { throw BenchError(message: "raw Bundle: \(response.status)") }
                }
            }
        }
        try await rawBundles("raw batch Bundles of PUTs", "rawb\(run)")

        var configuration = FHIRStoreConfiguration(baseURL: baseURL)
        configuration.batchSize = batchSize
        let store = try await FHIRObservationStore(configuration: configuration)
        for (label, version) in [("store insert", Int64(1)), ("store update", 2), ("store unchanged", 2)] {
            let all = UpsertBench.records(count: count, version: version, prefix: "dvp\(run)")
            try await measure(label, count) {
                for offset in stride(from: 0, to: all.count, by: batchSize) {
                    _ = try await store.upsert(Array(all[offset..<min(offset + batchSize, all.count)]))
                }
            }
        }
        await store.close()
        // The server slows as its database grows: the same raw pass again brackets the store's passes.
        try await rawBundles("raw batch Bundles of PUTs, again", "rawc\(run)")
        await http.close()
        return 0
    }

    /// The store's own rate for the worker's Observations: every valid event of `path`, mapped, upserted in calls
    /// of `--upsert-batch` records (as the worker's batches), each split into Bundles of `batchSize`.
    private static func insertEvents(
        _ path: String, baseURL: String, batchSize: Int, _ arguments: ParsedCommandLine
    ) async throws -> Int32 {
        let records = try MappedEvents.records(ofFile: path, idKey: "fhir-bench-id-key")
        let upsertBatch = try arguments.integer("--upsert-batch", in: 1...100_000) ?? 1000
        var configuration = FHIRStoreConfiguration(baseURL: baseURL)
        configuration.batchSize = batchSize
        if let inFlight = try arguments.integer(
            "--bundles-in-flight", in: 1...FHIRStoreConfiguration.maxBundlesInFlight)
        {
            configuration.bundlesInFlight = inFlight
        }
        let store = try await FHIRObservationStore(configuration: configuration)
        var outcomes: [String: Int] = [:]
        try await measure("store insert, mapped events", records.count) {
            for offset in stride(from: 0, to: records.count, by: upsertBatch) {
                let slice = Array(records[offset..<min(offset + upsertBatch, records.count)])
                for result in try await store.upsert(slice) { outcomes[result.description, default: 0] += 1 }
            }
        }
        await store.close()
        print("outcomes: " + outcomes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
            .joined(separator: ", "))
        return 0
    }

    private static func resource(_ record: ObservationRecord, _ system: String) -> [UInt8] {
        var configuration = FHIRStoreConfiguration(baseURL: "")
        configuration.versionTagSystem = system
        return configuration.resource(for: record)
    }

    private static func measure(_ label: String, _ count: Int, _ body: () async throws -> Void) async throws {
        let start = ContinuousClock.now
        try await body()
        let seconds = (ContinuousClock.now - start) / .seconds(1)
        let rate = Int(Double(count) / seconds)
        print("\(label): \(count) records in \(String(format: "%.2f", seconds)) s = \(rate) records/s")
    }
}

/// A failed raw request of the bench.
struct BenchError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
