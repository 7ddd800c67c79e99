import DailyValueContract
import Foundation
import ObservationStores
import StoreCore
import TestSupport

/// The SQL stores a worker test runs on (arguments of `@Test`): an SQLite file in the harness directory, or a fresh
/// database on the PostgreSQL test server; with raw read access (`sqlite3`, `psql`) for what the store API does not
/// show (status column, retraction ledger, whole rows).
enum SQLStoreKind: String, CaseIterable, Sendable, CustomStringConvertible {
    case sqlite
    case postgres

    var description: String { rawValue }

    /// A new, empty store's location (`--store`) under `directory`, or on the PostgreSQL test server.
    func freshLocation(in directory: URL) async throws -> String {
        switch self {
        case .sqlite:
            return "sqlite:" + directory.appendingPathComponent("observations-\(UUID().uuidString).sqlite").path
        case .postgres: return try await TestPostgres.freshDatabase("worker")
        }
    }

    /// The rows of constant SQL (written by the test, never input) as `sqlite3`/`psql -A` print them: one line per
    /// row, columns separated by `|`, trimmed.
    func query(_ location: String, _ sql: String) async throws -> String {
        let result =
            switch self {
            case .sqlite: try await runCommand("/usr/bin/sqlite3", [String(location.dropFirst("sqlite:".count)), sql])
            case .postgres: try await runCommand("/usr/bin/psql", [location, "-v", "ON_ERROR_STOP=1", "-Atc", sql])
            }
        guard result.status == 0 else { throw TestSetupError("\(self) query failed: \(sql): \(result.stderr)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// SQL for what a row keeps of its resource, as text: the JSON (SQLite) or the compressed document (PostgreSQL,
    /// schema 4: docs/STORAGE.md), for byte-for-byte comparisons of rows.
    var storedResourceColumn: String {
        switch self {
        case .sqlite: "resource"
        case .postgres: "coalesce(resource::text, encode(document, 'hex'))"
        }
    }

    /// Every stored day by `PATIENT/METRIC/DAY`, read through the store itself: each resource whole, as `storectl
    /// show` prints it (PostgreSQL renders it from the document and the columns), each row in one statement.
    func storedObservations(_ location: String) async throws -> [String: StoredObservation] {
        let patients = try await query(location, "SELECT DISTINCT patient FROM observation")
        let store = try await makeObservationStore(try StoreLocation(parsing: location))
        var rows: [String: StoredObservation] = [:]
        do {
            for patient in patients.split(separator: "\n") {
                for row in try await store.observations(patient: String(patient)) {
                    rows["\(row.identity.patient)/\(row.identity.metric)/\(row.identity.day)"] = row
                }
            }
        } catch {
            await store.close()
            throw error
        }
        await store.close()
        return rows
    }
}
