@testable import FHIRServerStore
import Foundation
@testable import ObservationMapping
@testable import StoreCore
import Testing

/// docs/LIFECYCLE.md's rules tables (the default mode's and delete mode's), row by row, on SQLite and PostgreSQL: the
/// tables are parsed here, so a row added to the document is a new test case and a row the stores do not follow fails.
@Suite(.timeLimit(.minutes(2)))
struct ObservationLifecycleContractTests {
    /// One row: `Stored | Incoming | Outcome | Stored status | Counter` (delete mode: `| meta.versionId`).
    struct Rule: Sendable, CustomTestStringConvertible {
        /// `status vN X` (a value), `retraction vN` (incoming), `retracted vN` (stored: a ledger entry, no row),
        /// `deleted vN` (stored, delete mode: values of versions N−2 and N−1 deleted by a retraction vN).
        struct Event: Sendable {
            /// nil for a retraction.
            var status: ObservationStatus?
            var version: Int64
            var value: Double
            /// `deleted vN`.
            var isDeleted = false

            init(_ text: Substring) throws {
                let words = text.split(separator: " ")
                let isRetraction = ["retraction", "retracted", "deleted"].contains(words.first)
                isDeleted = words.first == "deleted"
                try #require(words.count == (isRetraction ? 2 : 3), "an event is `status vN X` or `retraction vN`")
                if isRetraction {
                    status = nil
                } else {
                    let status: ObservationStatus = try #require(
                        ObservationStatus(rawValue: String(words[0])), "\(text)")
                    self.status = status
                }
                version = try #require(Int64(words[1].dropFirst()), "version in \(text)")
                value = isRetraction ? 0 : try #require(["A": 60, "B": 70][String(words[2])], "value in \(text)")
            }

            var record: ObservationRecord {
                let value = StoreTests.record(version: version, value: value, status: status)
                guard status == nil else { return value }
                return .retraction(
                    identity: value.identity, version: version, resourceID: value.resourceID, reason: "wrong sample")
            }
        }

        var line: String
        var mode: RetractionMode
        var stored: Event?
        var incoming: Event
        var outcome: UpsertOutcome
        /// nil: the day has no row (`none`).
        var status: ObservationStatus?
        var counter: UpsertOutcome
        /// The row's `meta.versionId` after the event, when the table has that column (nil: no row).
        var versionId: Int64??

        var testDescription: String { mode == .delete ? "delete mode: " + line : line }

        /// A stored status cell: `none` (no row) or an ``ObservationStatus``.
        private static func status(_ cell: String, _ row: Substring) throws -> ObservationStatus? {
            if cell == "none" { return nil }
            let status: ObservationStatus = try #require(ObservationStatus(rawValue: cell), "status in \(row)")
            return status
        }

        /// A `meta.versionId` cell: `none` (no row) or a number.
        private static func versionId(_ cell: String, _ row: Substring) throws -> Int64? {
            if cell == "none" { return nil }
            let versionId: Int64 = try #require(Int64(cell), "versionId in \(row)")
            return versionId
        }

        /// The sections holding a table, and the retraction mode their rows run in.
        static let sections: [(heading: String, mode: RetractionMode)] = [
            ("Rules", .enteredInError), ("Rules in delete mode", .delete),
        ]

        /// The rows of the tables under `## Rules` and `## Rules in delete mode`.
        static func all() throws -> [Rule] {
            let url = Fixtures.packageRoot().appendingPathComponent("docs/LIFECYCLE.md")
            let text = try String(contentsOf: url, encoding: .utf8)
            let parts = text.components(separatedBy: "\n## ")
            return try sections.flatMap { heading, mode in
                let section = try #require(parts.first { $0.hasPrefix(heading + "\n") }, "no section \(heading)")
                return try rows(section).map { try rule($0, mode: mode) }
            }
        }

        private static func rows(_ section: String) -> [Substring] {
            section.split(separator: "\n").filter { $0.hasPrefix("| ") && !$0.hasPrefix("| Stored |") }
        }

        private static func rule(_ row: Substring, mode: RetractionMode) throws -> Rule {
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            try #require(cells.count == 5 || cells.count == 6, "five or six cells: \(row)")
            return Rule(
                line: String(row), mode: mode, stored: cells[0] == "none" ? nil : try Event(Substring(cells[0])),
                incoming: try Event(Substring(cells[1])),
                outcome: try #require(UpsertOutcome(rawValue: cells[2]), "outcome in \(row)"),
                status: try status(cells[3], row),
                counter: try #require(UpsertOutcome(rawValue: cells[4]), "counter in \(row)"),
                versionId: cells.count == 6 ? .some(try versionId(cells[5], row)) : .none)
        }
    }

    static let rules = (try? Rule.all()) ?? []

    @Test func theTablesHaveTheirRows() throws {
        let rules = try Rule.all()
        #expect(rules.filter { $0.mode == .enteredInError }.count >= 33)
        #expect(rules.filter { $0.mode == .delete }.count >= 14)
    }

    @Test(arguments: StoreKind.sqlStores, rules)
    func rule(kind: StoreKind, rule: Rule) async throws {
        try await TestStores.withFreshStore(kind, retractions: rule.mode) { store, location in
            let identity = rule.incoming.record.identity
            if let stored = rule.stored {
                try await arrange(stored, in: store)
            }
            let before = try await store.observation(for: identity)
            let countsBefore = try await counts(store)

            #expect(try await store.upsert([rule.incoming.record]) == [UpsertResult(rule.outcome)])

            let after = try await store.observation(for: identity)
            #expect(try after.flatMap(status(of:)) == rule.status)
            #expect(try await TestStores.rawText(location, "SELECT status FROM observation") == rule.status?.rawValue)
            if case .some(let versionId) = rule.versionId {
                #expect(after?.versionId == versionId, "meta.versionId")
            }
            var expectedCounts = countsBefore
            expectedCounts[rule.counter, default: 0] += 1
            #expect(try await counts(store) == expectedCounts)
            if rule.outcome == .retracted {  // the ledger holds the retraction, for a day never stored too
                let ledger = "SELECT version || ' ' || reason FROM retraction"
                #expect(try await TestStores.rawText(location, ledger) == "\(rule.incoming.version) wrong sample")
            }
            switch rule.outcome {
            case .inserted, .updated, .retracted:
                guard let after else { break }  // a retraction of a day never stored: the ledger only
                #expect(after.version == rule.incoming.version)
                if rule.versionId == nil { #expect(after.versionId == (before?.versionId ?? 0) + 1) }
                // A value is written as mapped; a retraction keeps the stored resource and changes its status.
                let expected =
                    try rule.incoming.status == nil
                    ? withStatus(try #require(before).resource, .enteredInError)
                    : rule.incoming.record.resource(status: rule.status)
                #expect(
                    try sameJSON(after.resource, expected, versionId: after.versionId, lastUpdated: after.lastUpdated))
            case .unchanged, .stale, .conflict, .expired, .erased:
                #expect(after == before)
            }
        }
    }

    /// A value and its retraction in one batch end as they would one by one: the day stored, then marked
    /// entered-in-error (or deleted); a lower value in the same batch is stale.
    @Test(arguments: StoreKind.sqlStores, RetractionMode.allCases)
    func aBatchEndsAsTheEventsOneByOne(kind: StoreKind, mode: RetractionMode) async throws {
        let value = record(version: 5, value: 60, status: .final)
        let retraction = ObservationRecord.retraction(
            identity: value.identity, version: 7, resourceID: value.resourceID, reason: "wrong sample")
        let batch = [
            record(version: 4, value: 50, status: .final), value, retraction, record(version: 3, status: .final),
        ]
        let (batched, oneByOne) = try await (run(kind, mode, [batch]), run(kind, mode, batch.map { [$0] }))
        #expect(batched.outcomes == [.stale, .inserted, .retracted, .stale])
        #expect(oneByOne.outcomes == [.inserted, .updated, .retracted, .stale])
        guard mode == .enteredInError else {
            #expect(batched.row == nil && oneByOne.row == nil)
            return
        }
        #expect(batched.row?.version == 7 && oneByOne.row?.version == 7)
        #expect(try batched.row.flatMap(status(of:)) == .enteredInError)
        #expect(try oneByOne.row.flatMap(status(of:)) == .enteredInError)
        let expected = try withStatus(value.resource, .enteredInError)
        let row = try #require(batched.row)
        #expect(try sameJSON(row.resource, expected, versionId: 2, lastUpdated: row.lastUpdated))
    }

    /// A tie between a retraction and a value in one batch: the first of the two wins, as one by one.
    @Test(arguments: StoreKind.sqlStores, RetractionMode.allCases)
    func aTieInOneBatchEndsAsTheEventsOneByOne(kind: StoreKind, mode: RetractionMode) async throws {
        let value = record(version: 7, value: 60, status: .final)
        let retraction = ObservationRecord.retraction(
            identity: value.identity, version: 7, resourceID: value.resourceID, reason: "wrong sample")
        let retractedFirst = [retraction, value]
        let (batched, oneByOne) = try await (
            run(kind, mode, [retractedFirst]), run(kind, mode, retractedFirst.map { [$0] })
        )
        #expect(batched.outcomes == [.retracted, .unchanged] && oneByOne.outcomes == batched.outcomes)
        #expect(batched.row == nil && oneByOne.row == nil, "a retraction of a day never stored leaves no row")

        let valueFirst = [value, retraction]
        let (batched2, oneByOne2) = try await (
            run(kind, mode, [valueFirst]), run(kind, mode, valueFirst.map { [$0] })
        )
        #expect(batched2.outcomes == [.inserted, .unchanged] && oneByOne2.outcomes == batched2.outcomes)
        #expect(try batched2.row.flatMap(status(of:)) == .final)
        #expect(try oneByOne2.row.flatMap(status(of:)) == .final)
    }

    private func run(_ kind: StoreKind, _ mode: RetractionMode, _ batches: [[ObservationRecord]]) async throws
        -> (outcomes: [UpsertResult], row: StoredObservation?)
    {
        try await TestStores.withFreshStore(kind, retractions: mode) { store, _ in
            var outcomes: [UpsertResult] = []
            for batch in batches { outcomes += try await store.upsert(batch) }
            return (outcomes, try await store.observation(for: batches[0][0].identity))
        }
    }

    /// Delete mode over several cycles: a re-stored day continues from the deleted row's `meta.versionId`, which the
    /// ledger keeps through a later retraction of the deleted day; a resource id never shows a versionId twice.
    @Test(arguments: StoreKind.databases)
    func aReStoredDayContinuesItsVersionIds(kind: StoreKind) async throws {
        try await TestStores.withFreshStore(kind, retractions: .delete) { store, location in
            let day = record(version: 1, value: 60, status: .final)
            func retraction(_ version: Int64) -> ObservationRecord {
                .retraction(
                    identity: day.identity, version: version, resourceID: day.resourceID, reason: "wrong sample")
            }
            func versionId() async throws -> Int64? { try await store.observation(for: day.identity)?.versionId }
            let ledger = "SELECT version || ' ' || coalesce(version_id, 0) FROM retraction"

            #expect(
                try await store.upsert([day, record(version: 2, value: 70, status: .final)]) == [.stale, .inserted])
            #expect(try await store.upsert([record(version: 3, value: 60, status: .final)]) == [.updated])
            #expect(try await store.upsert([retraction(4)]) == [.retracted])
            #expect(try await TestStores.rawText(location, ledger) == "4 2")
            #expect(try await store.upsert([retraction(5)]) == [.retracted])
            #expect(try await TestStores.rawText(location, ledger) == "5 2", "the deleted row's versionId is kept")
            #expect(try await store.upsert([record(version: 6, value: 60, status: .preliminary)]) == [.inserted])
            #expect(try await versionId() == 3)
            #expect(try await store.upsert([record(version: 7, value: 70, status: .final)]) == [.updated])
            #expect(try await versionId() == 4)
            // The value beneath a retraction in one batch is written (versionId 5), then deleted.
            let batch = try await store.upsert([record(version: 8, value: 60, status: .final), retraction(9)])
            #expect(batch == [.updated, .retracted])
            #expect(try await TestStores.rawText(location, ledger) == "9 5")
            #expect(try await store.upsert([retraction(10)]) == [.retracted])
            #expect(try await TestStores.rawText(location, ledger) == "10 5")
            #expect(try await store.upsert([record(version: 11, status: .final)]) == [.inserted])
            let row = try #require(try await store.observation(for: day.identity))
            #expect(row.versionId == 6)
            let mapped = record(version: 11, status: .final).resource(status: .final)
            #expect(try sameJSON(row.resource, mapped, versionId: 6, lastUpdated: row.lastUpdated))
        }
    }

    /// The FHIR server store does not support retractions yet: each is refused (dead-lettered by the worker, with
    /// this reason) and the rest of the batch is decided.
    @Test func theFHIRStoreRefusesRetractions() async throws {
        try await TestStores.withFreshStore(.fhir) { store, _ in
            let value = record("p-1", version: 5, status: .final)
            let other = record("p-2", version: 5, status: .final)
            let retraction = ObservationRecord.retraction(
                identity: other.identity, version: 7, resourceID: other.resourceID, reason: "wrong sample")
            let results = try await store.upsert([value, retraction])
            #expect(results == [.inserted, .refused(reason: FHIRObservationStore.retractionsUnsupported)])
            let retracted = try await store.observation(for: other.identity)
            #expect(retracted == nil)
        }
    }

    /// Brings the row to `stored`: an `amended` row is a final one replaced by a different value; an
    /// `entered-in-error` row and a `deleted` day are a final one retracted.
    private func arrange(_ stored: Rule.Event, in store: any ObservationStore) async throws {
        if stored.isDeleted {
            _ = try await store.upsert([record(version: stored.version - 2, value: stored.value + 1, status: .final)])
            _ = try await store.upsert([record(version: stored.version - 1, value: stored.value, status: .final)])
        }
        switch stored.status {
        case .amended?:
            _ = try await store.upsert([record(version: stored.version - 1, value: stored.value + 1, status: .final)])
            _ = try await store.upsert([record(version: stored.version, value: stored.value, status: .final)])
        case .enteredInError?:
            _ = try await store.upsert([record(version: stored.version - 1, value: stored.value, status: .final)])
            var retraction = stored
            retraction.status = nil
            _ = try await store.upsert([retraction.record])
        default:
            _ = try await store.upsert([stored.record])
        }
        let row = try await store.observation(for: stored.record.identity)
        try #require(try row.flatMap(status(of:)) == stored.status, "arranged \(String(describing: stored.status))")
    }

    /// `resource` with its `status` replaced (through Foundation, for the comparison only).
    private func withStatus(_ resource: String, _ status: ObservationStatus) throws -> String {
        var json = try #require(try JSONSerialization.jsonObject(with: Data(resource.utf8)) as? [String: Any])
        json["status"] = status.rawValue
        return String(decoding: try JSONSerialization.data(withJSONObject: json), as: UTF8.self)
    }

    private func status(of stored: StoredObservation) throws -> ObservationStatus? {
        let json = try JSONSerialization.jsonObject(with: Data(stored.resource.utf8)) as? [String: Any]
        return (json?["status"] as? String).flatMap(ObservationStatus.init(rawValue:))
    }

    private func counts(_ store: any ObservationStore) async throws -> [UpsertOutcome: Int64] {
        Dictionary(try await store.outcomeCounts().map { ($0.outcome, $0.count) }, uniquingKeysWith: +)
    }
}
