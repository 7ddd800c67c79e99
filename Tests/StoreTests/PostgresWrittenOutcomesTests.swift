import Essentials
import PostgresClient
@testable import PostgresStore
@testable import StoreCore
import TestSupport
import Testing

/// The upsert's RETURNING rows are matched to the winners they belong to: walking both in identity order when the
/// rows come in that order, by identity when they do not. Rows come from a real server (`VALUES` in a chosen order).
@Suite struct PostgresWrittenOutcomesTests {
    /// Winners as the upsert binds them: sorted by identity.
    static let winners = [
        record("p-1", version: 1), record("p-1", "steps", version: 1), record("p-2", version: 1),
        record("p-3", version: 1), record("pé", version: 1),
    ]

    /// The outcomes for `rows` (patient, metric, inserted?; day 2026-10-01) returned in the order given.
    static func outcomes(_ rows: [(String, String, Bool)]) async throws -> [UpsertOutcome?] {
        let url = try await TestStores.postgresURL()
        let values = rows.map { "('\($0.0)', '\($0.1)', '2026-10-01', \($0.2))" }.joined(separator: ", ")
        let box = QueueConfined(label: "test.written-outcomes", ())
        return try await box.run { _ in
            let connection = try PostgresConnection(connectionString: url, options: PostgresClientOptions())
            let result = try connection.executePrepared(
                "w", "SELECT * FROM (VALUES \(values)) AS v (patient, metric, day, inserted)", [])
            return PostgresUpsert.writtenOutcomes(result, winners: winners)
        }
    }

    @Test("rows in identity order, some winners not written")
    func inOrder() async throws {
        let outcomes = try await Self.outcomes([
            ("p-1", "heart_rate", true), ("p-2", "heart_rate", false), ("pé", "heart_rate", true),
        ])
        #expect(outcomes == [.inserted, nil, .updated, nil, .inserted])
    }

    @Test("rows in another order (e.g. a collation's) are matched by identity")
    func outOfOrder() async throws {
        let outcomes = try await Self.outcomes([
            ("pé", "heart_rate", false), ("p-3", "heart_rate", true), ("p-1", "steps", true),
            ("p-1", "heart_rate", false),
        ])
        #expect(outcomes == [.updated, .inserted, nil, .inserted, .updated])
    }

    @Test("no rows: nothing written")
    func noRows() async throws {
        let url = try await TestStores.postgresURL()
        let box = QueueConfined(label: "test.written-none", ())
        let outcomes = try await box.run { _ in
            let connection = try PostgresConnection(connectionString: url, options: PostgresClientOptions())
            let result = try connection.executePrepared("n", "SELECT 'x', 'y', 'z', true WHERE false", [])
            return PostgresUpsert.writtenOutcomes(result, winners: Self.winners)
        }
        #expect(outcomes == [nil, nil, nil, nil, nil])
    }
}
