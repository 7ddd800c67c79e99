import Foundation
import Testing

@testable import ObservationUpsert

/// docs/LIFECYCLE.md's rules table, row by row, on SQLite and PostgreSQL: the table is parsed here, so a row added
/// to the document is a new test case and a row the stores do not follow fails.
@Suite(.timeLimit(.minutes(2)))
struct ObservationLifecycleContractTests {
    /// One row: `Stored | Incoming | Outcome | Stored status | Counter`.
    struct Rule: Sendable, CustomTestStringConvertible {
        /// A status, version and value letter, e.g. `final v5 A`.
        struct Event: Sendable {
            var status: ObservationStatus
            var version: Int64
            var value: Double

            init(_ text: Substring) throws {
                let words = text.split(separator: " ")
                try #require(words.count == 3, "an event is `status vN X`: \(text)")
                status = try #require(ObservationStatus(rawValue: String(words[0])), "status in \(text)")
                version = try #require(Int64(words[1].dropFirst()), "version in \(text)")
                value = try #require(["A": 60, "B": 70][String(words[2])], "value letter in \(text)")
            }

            var record: ObservationRecord { ObservationUpsertTests.record(version: version, value: value, status: status) }
        }

        var line: String
        var stored: Event?
        var incoming: Event
        var outcome: UpsertOutcome
        var status: ObservationStatus
        var counter: UpsertOutcome

        var testDescription: String { line }

        /// The rows of the table under `## Rules`.
        static func all() throws -> [Rule] {
            let url = Fixtures.packageRoot().appendingPathComponent("docs/LIFECYCLE.md")
            let text = try String(contentsOf: url, encoding: .utf8)
            let section = try #require(text.components(separatedBy: "## Rules").dropFirst().first)
            let rows = section.split(separator: "\n").filter { $0.hasPrefix("| ") && !$0.hasPrefix("| Stored |") }
            return try rows.map { row in
                let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
                try #require(cells.count == 5, "five cells: \(row)")
                return Rule(
                    line: String(row), stored: cells[0] == "none" ? nil : try Event(Substring(cells[0])),
                    incoming: try Event(Substring(cells[1])),
                    outcome: try #require(UpsertOutcome(rawValue: cells[2]), "outcome in \(row)"),
                    status: try #require(ObservationStatus(rawValue: cells[3]), "status in \(row)"),
                    counter: try #require(UpsertOutcome(rawValue: cells[4]), "counter in \(row)"))
            }
        }
    }

    static let rules = (try? Rule.all()) ?? []

    @Test func theTableHasItsRows() throws {
        #expect(try Rule.all().count >= 15)
    }

    @Test(arguments: StoreKind.databases, rules)
    func rule(kind: StoreKind, rule: Rule) async throws {
        try await TestStores.withFreshStore(kind) { store, location in
            let identity = rule.incoming.record.identity
            if let stored = rule.stored {
                try await arrange(stored, in: store)
            }
            let before = try await store.observation(for: identity)
            let countsBefore = try await counts(store)

            #expect(try await store.upsert([rule.incoming.record]) == [rule.outcome])

            let after = try #require(try await store.observation(for: identity))
            #expect(try status(of: after) == rule.status)
            #expect(try await TestStores.rawText(location, "SELECT status FROM observation") == rule.status.rawValue)
            var expectedCounts = countsBefore
            expectedCounts[rule.counter, default: 0] += 1
            #expect(try await counts(store) == expectedCounts)
            switch rule.outcome {
            case .inserted, .updated:
                #expect(after.version == rule.incoming.version)
                #expect(after.versionId == (before?.versionId ?? 0) + 1)
                let expected = rule.incoming.record.resource(status: rule.status)
                #expect(try sameJSON(after.resource, expected, versionId: after.versionId, lastUpdated: after.lastUpdated))
            case .unchanged, .stale:
                #expect(after == before)
            }
        }
    }

    /// Brings the row to `stored`: an `amended` row is a final one replaced by a different value.
    private func arrange(_ stored: Rule.Event, in store: any ObservationStore) async throws {
        if stored.status == .amended {
            _ = try await store.upsert([record(version: stored.version - 1, value: stored.value + 1, status: .final)])
            _ = try await store.upsert([record(version: stored.version, value: stored.value, status: .final)])
        } else {
            _ = try await store.upsert([stored.record])
        }
        let row = try #require(try await store.observation(for: stored.record.identity))
        try #require(try status(of: row) == stored.status, "arranged \(stored.status)")
    }

    private func status(of stored: StoredObservation) throws -> ObservationStatus? {
        let json = try JSONSerialization.jsonObject(with: Data(stored.resource.utf8)) as? [String: Any]
        return (json?["status"] as? String).flatMap(ObservationStatus.init(rawValue:))
    }

    private func counts(_ store: any ObservationStore) async throws -> [UpsertOutcome: Int64] {
        Dictionary(try await store.outcomeCounts().map { ($0.outcome, $0.count) }, uniquingKeysWith: +)
    }
}
