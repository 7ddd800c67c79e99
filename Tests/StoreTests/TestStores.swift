import DailyValueContract
import Essentials
@testable import FHIRServerStore
import Foundation
@testable import ObservationMapping
import ObservationStores
import PostgresClient
@testable import PostgresStore
import SQLiteClient
@testable import SQLiteStore
@testable import StoreCore
import TestSupport
import Testing

/// The store implementations the contract suite runs against.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres
    /// PostgreSQL written on three connections at once (``LanedPostgresStore``, `--store-connections 3`).
    case postgresLanes
    /// A FHIR R4 server (sekmet-fhir, validation off for the synthetic records): where the contract applies.
    case fhir

    /// The stores with their own tables (schema, audit trigger, raw SQL).
    static let databases: [StoreKind] = [.sqlite, .postgres]
    /// The SQL stores and PostgreSQL on several connections: where the lifecycle and conflict rules are checked.
    static let sqlStores: [StoreKind] = [.sqlite, .postgres, .postgresLanes]

    var testDescription: String { self == .postgresLanes ? "postgres, 3 connections" : rawValue }

    /// The connections the store of this kind writes on.
    var connections: Int { self == .postgresLanes ? 3 : 1 }

    /// The number of schema migrations of this kind of store.
    var schemaVersion: Int {
        switch self {
        case .sqlite: SQLiteSchema.migrations.count
        case .postgres, .postgresLanes, .fhir: PostgresSchema.migrations.count
        }
    }
}

/// Fresh, empty stores for tests, and the environment they need.
enum TestStores {
    static let postgresURLVariable = "DVP_POSTGRES_URL"

    /// The PostgreSQL test server's URL (``TestPostgres``: `DVP_POSTGRES_URL`, else a throwaway cluster of this
    /// test process); no server fails the test (no silent skip).
    static func postgresURL() async throws -> String { try await TestPostgres.url() }

    /// Runs `body` with the location of a new, empty store of `kind`, removed afterwards on every path.
    static func withFreshLocation<Result>(
        _ kind: StoreKind, _ body: (StoreLocation) async throws -> Result
    ) async throws -> Result {
        try await withFreshLocation(kind, prepare: warmUp) { location, _ in try await body(location) }
    }

    /// Runs `prepare` on the location of a new, empty store of `kind`, then `body` with what it made; the location
    /// is removed afterwards on every path. On PostgreSQL, `prepare` runs among ``TestPostgres/setupSlots`` (with
    /// the database's creation: the first connections are the slow part), `body` outside them.
    static func withFreshLocation<Prepared, Result>(
        _ kind: StoreKind, prepare: (StoreLocation) async throws -> Prepared,
        _ body: (StoreLocation, Prepared) async throws -> Result
    ) async throws -> Result {
        switch kind {
        case .sqlite:
            let directory = try TestEnvironment.temporaryDirectory("dvp-store-test")
            defer { try? FileManager.default.removeItem(at: directory) }
            let location = StoreLocation.sqlite(path: directory.appendingPathComponent("observations.db").path)
            return try await body(location, try await prepare(location))
        case .postgres, .postgresLanes:
            let url = try await postgresURL()
            let database = "dvp_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            let location = StoreLocation.postgres(connectionString: TestPostgres.withDatabase(database, in: url))
            // Identifiers cannot be bound; this one is generated here from a UUID, never from input.
            let drop = { try await adminExecute(url, "DROP DATABASE \(database) WITH (FORCE)") }
            return try await TestPostgres.databasesInUse.run {
                do {
                    let prepared = try await TestPostgres.setupSlots.run {
                        try await adminExecute(url, "CREATE DATABASE \(database)")
                        return try await prepare(location)
                    }
                    let result = try await body(location, prepared)
                    try await drop()
                    return result
                } catch {
                    try? await drop()
                    throw error
                }
            }
        case .fhir:
            let server = try await TestFHIRServer(validation: .off)
            let location = StoreLocation.fhir(baseURL: server.baseURL)
            let result = try await body(location, try await prepare(location))
            withExtendedLifetime(server) {}
            return result
        }
    }

    /// A first connection to a new database, so that a body's own connections find its catalog cache warm.
    private static func warmUp(_ location: StoreLocation) async throws {
        if case .postgres(let url) = location { try await adminExecute(url, "SELECT 1") }
    }

    /// The erasure ledger's key of the test stores (the mapper's id key, as a worker's would be).
    static let erasureKey = try! ErasureKey(key: Fixtures.idKey)

    /// Runs `body` with a new, empty store of `kind` (with `retractions` mode), closed afterwards.
    static func withFreshStore<Result>(
        _ kind: StoreKind, retractions: RetractionMode = .enteredInError,
        _ body: (any ObservationStore, StoreLocation) async throws -> Result
    ) async throws -> Result {
        try await withFreshLocation(kind) { location in
            try await makeObservationStore(
                location, retractions: retractions, erasureKey: erasureKey, connections: kind.connections)
        } _: { location, store in
            do {
                let result = try await body(store, location)
                await store.close()
                return result
            } catch {
                await store.close()
                throw error
            }
        }
    }

    static func open(_ location: StoreLocation) async throws -> any SQLStore {
        let store = try await makeObservationStore(location)
        return try #require(store as? any SQLStore)
    }

    /// Makes the empty database behind `location` a store of schema 7 (its table before partitioning), then runs
    /// `rows` (constant SQL, e.g. an INSERT of old rows).
    static func createSchemaSeven(_ location: StoreLocation, then rows: String) async throws {
        try await rawExecute(
            location,
            """
            CREATE TABLE schema_version (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());
            INSERT INTO schema_version (version) SELECT generate_series(1, 7);
            \(PostgresSchema.migrations.prefix(7).joined(separator: "\n"))
            \(rows)
            """)
    }

    /// Runs constant SQL directly on the database behind `location` (to tamper with rows in audit tests).
    static func rawExecute(_ location: StoreLocation, _ sql: String) async throws {
        switch location {
        case .sqlite(let path):
            let box = QueueConfined(label: "test.sqlite", ())
            try await box.run { _ in try SQLiteConnection(path: path, busyTimeoutMilliseconds: 5000).execute(sql) }
        case .postgres(let url):
            try await adminExecute(url, sql)
        case .fhir:
            Issue.record("no SQL on a FHIR server")
        }
    }

    /// The first column of the first row of `sql`, read straight from the table (no store read path), as text.
    static func rawText(_ location: StoreLocation, _ sql: String) async throws -> String? {
        switch location {
        case .sqlite(let path):
            let box = QueueConfined(label: "test.sqlite", ())
            return try await box.run { _ in
                try SQLiteConnection(path: path, busyTimeoutMilliseconds: 5000).statement(sql).query { $0.text(0) }
                    .first
            }
        case .postgres(let url):
            let box = QueueConfined(label: "test.postgres-admin", ())
            return try await box.run { _ in
                let result = try PostgresConnection(connectionString: url).execute(sql)
                return result.rowCount > 0 ? result.text(0, 0) : nil
            }
        case .fhir:
            Issue.record("no SQL on a FHIR server")
            return nil
        }
    }

    private static func adminExecute(_ url: String, _ sql: String) async throws {
        let box = QueueConfined(label: "test.postgres-admin", ())
        try await box.run { _ in _ = try PostgresConnection(connectionString: url).executeScript(sql) }
    }
}

// MARK: - Records

/// A synthetic record: identity, version and a small Observation-shaped JSON with the mapper's identifier (the FHIR
/// store reads identities from it). With a `status`, the resource has the mapper's status slot and clinical value.
func record(
    _ patient: String = "p-1", _ metric: String = "heart_rate", _ day: String = "2026-10-01", version: Int64,
    value: Double = 60, status: ObservationStatus? = nil
) -> ObservationRecord {
    let id = "obs-\(patient)-\(metric.replacingOccurrences(of: "_", with: "-"))-\(day)"
    let identifier =
        #""source":"test"},"identifier":[{"system":"https://fhir.example.org/identifiers/daily-summary","value":"\#(patient)/\#(metric)/\#(day)"}],"#
    let quantity = #""valueQuantity":{"value":\#(value)}"#
    let note = #","note":[{"text":"v \"\#(version)\" \\ ok"}]}"#
    return ObservationRecord(
        identity: ObservationIdentity(patient: patient, metric: metric, day: day), version: version, resourceID: id,
        resourceHead: #"{"resourceType":"Observation","id":"\#(id)","meta":{"#,
        resourceTail: identifier + (status == nil ? quantity + note : #""status":"#), status: status,
        resourceAfterStatus: status == nil ? "" : "," + quantity + note, clinicalValue: quantity)
}

/// `stored` equals `mapped` plus the `meta.versionId` and `meta.lastUpdated` the store writes into the resource it
/// keeps (compared as JSON values: PostgreSQL's jsonb reorders keys). A FHIR store's event version tag is checked
/// apart (``fhirVersionTag(_:)``) and left out here.
func sameJSON(_ stored: String, _ mapped: String, versionId: Int64, lastUpdated: String) throws -> Bool {
    guard var expected = try JSONSerialization.jsonObject(with: Data(mapped.utf8)) as? [String: Any] else {
        return false
    }
    var meta = expected["meta"] as? [String: Any] ?? [:]
    meta["versionId"] = String(versionId)
    meta["lastUpdated"] = lastUpdated
    expected["meta"] = meta
    guard var actual = try JSONSerialization.jsonObject(with: Data(stored.utf8)) as? [String: Any] else { return false }
    if var actualMeta = actual["meta"] as? [String: Any], let tags = actualMeta["tag"] as? [[String: Any]] {
        let others = tags.filter { $0["system"] as? String != FHIRStoreConfiguration.defaultVersionTagSystem }
        actualMeta["tag"] = others.isEmpty ? nil : others
        actual["meta"] = actualMeta
    }
    return NSDictionary(dictionary: actual) == NSDictionary(dictionary: expected)
}

/// The event version on a FHIR store's version tag of a stored resource, if any.
func fhirVersionTag(_ resource: String) throws -> Int64? {
    let tags = try storedMeta(resource)["tag"] as? [[String: Any]] ?? []
    return tags.first { $0["system"] as? String == FHIRStoreConfiguration.defaultVersionTagSystem }
        .flatMap { $0["code"] as? String }.flatMap { Int64($0) }
}

/// The `meta` object of a stored resource.
func storedMeta(_ resource: String) throws -> [String: Any] {
    let json = try #require(try JSONSerialization.jsonObject(with: Data(resource.utf8)) as? [String: Any])
    return try #require(json["meta"] as? [String: Any], "no meta in \(resource)")
}
