import DailyValueContract
import Essentials
import Foundation
import ObservationMapping
import PostgresClient
import StoreCore
import TestSupport
import Testing

/// The README's "SQL over the stored facts" examples run against a real PostgreSQL store and return what they say.
@Suite(.timeLimit(.minutes(2)))
struct ReadmeSQLExamplesTests {
    /// The statements of the README's first `sql` block.
    static func examples() throws -> [String] {
        let readme = try String(
            contentsOf: TestEnvironment.root.appendingPathComponent("README.md"), encoding: .utf8)
        let start = try #require(readme.range(of: "```sql\n"))
        let end = try #require(readme.range(of: "```", range: start.upperBound..<readme.endIndex))
        return readme[start.upperBound..<end.lowerBound].split(separator: ";")
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
    }

    @Test func theExamplesAnswerOnStoredFacts() async throws {
        let examples = try Self.examples()
        #expect(examples.count == 3)
        try await TestStores.withFreshStore(.postgres) { store, location in
            guard case .postgres(let url) = location else { return }
            // p-000123's steps on 2026-09-28 (a Monday) … 2026-10-04, one preliminary day, one retracted day.
            let days = [
                "2026-09-28", "2026-09-29", "2026-09-30", "2026-10-01", "2026-10-02", "2026-10-03", "2026-10-04",
            ]
            var records = try days.enumerated().map { index, day in
                try SchemaFourUpgradeTests.steps(
                    "p-000123", day, 1, Double(1000 * (index + 1)), day == "2026-10-04" ? .preliminary : .final)
            }
            var heart = ObservationSamples.value(for: MetricCatalog.builtin["heart_rate"]!, day: "2026-10-03")
            heart.version = 1
            records.append(try Fixtures.mapper.map(heart, recordTimestampMs: Fixtures.ms("2026-10-04T06:00:00Z")))
            _ = try await store.upsert(records)
            _ = try await store.upsert([
                .retraction(
                    identity: records[0].identity, version: 2, resourceID: records[0].resourceID, reason: "wrong")
            ])

            let connection = QueueConfined(label: "test.readme-sql", try PostgresConnection(connectionString: url))
            let answers = try await connection.run { connection in
                try examples.map { sql in
                    let result = try connection.execute(sql)
                    return result.rows { row in (0..<3).map { result.text(row, $0) }.joined(separator: " ") }
                }
            }
            // Week of 2026-09-28: days 2…7 (the first retracted), 2000 + … + 7000 steps.
            #expect(answers[0] == ["2026-09-28 27000 6"], "\(answers[0])")
            let rate = String(format: "%g", try #require(heart.value))
            #expect(answers[1] == ["heart_rate 2026-10-03 \(rate)", "steps 2026-10-04 7000"], "\(answers[1])")
            #expect(answers[2] == ["2026-10-04 p-000123 steps"], "\(answers[2])")
        }
    }
}
