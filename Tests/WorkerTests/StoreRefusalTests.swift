import Foundation
import Kafka
import TestSupport
import Testing

/// A store error retrying cannot fix (issue 23 item 3): the worker commits its durable work and ends with exit
/// status 4 and a clear message — a restart loop operators see — instead of pausing with no end.
@Suite("A store that refuses the work for good", .serialized, .timeLimit(.minutes(5)))
struct StoreRefusalTests {
    private static func psql(_ url: String, _ sql: String) async throws {
        let result = try await ChildProcess.run("/usr/bin/psql", [url, "-v", "ON_ERROR_STOP=1", "-qc", sql])
        try #require(result.status == 0, "psql failed: \(result.stderr)")
    }

    /// Splits a JSON-lines file into `parts` files of consecutive lines.
    private static func split(_ events: URL, into parts: Int, in directory: URL) throws -> [URL] {
        let lines = try String(contentsOf: events, encoding: .utf8).split(separator: "\n")
        let size = (lines.count + parts - 1) / parts
        return try (0..<parts).map { part in
            let url = directory.appendingPathComponent("part-\(part).jsonl")
            let slice = lines[min(lines.count, part * size)..<min(lines.count, (part + 1) * size)]
            try (slice.joined(separator: "\n") + "\n").write(to: url, atomically: true, encoding: .utf8)
            return url
        }
    }

    @Test("table permissions revoked mid-stream: exit 4 with the SQLSTATE, durable work committed, nothing lost")
    func permissionsRevoked() async throws {
        let harness = try PipelineHarness()
        try await harness.startBroker()
        let admin = try await TestPostgres.freshDatabase("refusal")
        let (events, oracle) = try await harness.generate(patients: 30, days: 4, seed: 31)
        let parts = try Self.split(events, into: 3, in: harness.directory)

        // The schema, made by a worker with every right; then a role that may read and write the rows (and run the
        // idempotent migration check at start).
        try await harness.publish(parts[0])
        let setup = try harness.startWorker(store: admin, name: "worker-setup")
        #expect(await setup.waitForExit(timeout: .seconds(90)) == 0, "\(setup.stderr.suffix(2000))")
        let role = "dvp_limited_\(UUID().uuidString.prefix(6).lowercased())"
        try await Self.psql(admin, """
            CREATE ROLE \(role) LOGIN PASSWORD 'limited';
            GRANT USAGE, CREATE ON SCHEMA public TO \(role);
            GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO \(role);
            GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO \(role);
            """)
        var components = try #require(URLComponents(string: admin))
        components.user = role
        components.password = "limited"
        let limited = try #require(components.string)
        let worker = try harness.startWorker(store: limited, untilCaughtUp: false, name: "worker-limited")
        _ = try await WorkerProbe(worker)  // up and serving before the stream goes on
        try await harness.publish(parts[1])
        let caughtUp = try await eventually(timeout: .seconds(60), interval: .milliseconds(500)) {
            try await harness.committedVersusEnd(group: "workers").allSatisfy { $0.committed == $0.end }
        }
        try #require(caughtUp, "the limited worker did not commit the second part: \(worker.stderr.suffix(2000))")
        let committedBefore = try await harness.committedVersusEnd(group: "workers").map(\.committed)

        try await Self.psql(admin, "REVOKE INSERT, UPDATE ON observation FROM \(role)")
        try await harness.publish(parts[2])
        let status = await worker.waitForExit(timeout: .seconds(60))
        #expect(status == 4, "exit \(ChildProcess.describe(status)): \(worker.stderr.suffix(2000))")
        #expect(worker.stderr.contains("42501"), "the log does not name the SQLSTATE")
        #expect(worker.stderr.contains("retrying cannot fix"))
        #expect(!worker.stderr.contains(":limited@"), "the store URI's password reached the log")
        // Nothing past the refused batch was committed.
        #expect(try await harness.committedVersusEnd(group: "workers").map(\.committed) == committedBefore)

        // The rights back: a restarted worker reads the refused part again; the store holds every event.
        try await Self.psql(admin, "GRANT INSERT, UPDATE ON observation TO \(role)")
        let restarted = try harness.startWorker(store: limited, name: "worker-restarted")
        #expect(await restarted.waitForExit(timeout: .seconds(90)) == 0, "\(restarted.stderr.suffix(2000))")
        let differences = await oracle.differences(from: try harness.storeDump(admin))
        #expect(differences.isEmpty, "store differs from the oracle: \(differences)")
    }
}
