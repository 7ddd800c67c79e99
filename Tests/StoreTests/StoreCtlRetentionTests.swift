import DailyValueContract
import Foundation
import StoreCore
import TestSupport
import Testing

/// `storectl retention` as the chart's CronJob runs it.
struct StoreCtlRetentionTests {
    static func storectl(_ arguments: [String]) async throws -> ProcessResult {
        try await ChildProcess.run(try TestEnvironment.requireBinary("storectl").path, ["retention"] + arguments)
    }

    @Test func aDryRunThenARunDropTheExpiredMonths() async throws {
        try await TestStores.withFreshStore(.postgres) { store, location in
            guard case .postgres(let url) = location else { throw TestSetupError("not PostgreSQL") }
            let today = Retention.today()
            _ = try await store.upsert([
                record("p-1", "steps", "2019-01-05", version: 1), record("p-1", "steps", today, version: 1),
            ])

            let preview = try await Self.storectl(["--store", url, "--keep-days", "30", "--dry-run"])
            #expect(preview.status == 0, "\(preview.stderr)")
            #expect(
                preview.stdout.contains("would drop observation_2019_01 (2019-01-01 to 2019-02-01"), "\(preview.stdout)"
            )
            #expect(try await store.allVersions().count == 2)

            let run = try await Self.storectl(["--store", url, "--keep-days", "30"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.contains("dropped observation_2019_01"), "\(run.stdout)")
            #expect(try await store.allVersions().keys.map(\.day) == [today])
            #expect(try await store.upsert([record("p-1", "steps", "2019-01-05", version: 2)]) == [.expired])
        }
    }

    @Test func whatItRefusesExitsTwoAndSaysWhy() async throws {
        let directory = try TestEnvironment.temporaryDirectory("dvp-storectl-retention")
        defer { try? FileManager.default.removeItem(at: directory) }
        let sqlite = ["--store", "sqlite:" + directory.appendingPathComponent("s.db").path]
        let cases: [(arguments: [String], says: String)] = [
            (sqlite + ["--keep-days", "30"], "a SQLite or FHIR store keeps every day"),
            (["--store", "postgresql://dvp:s3cret-pw@127.0.0.1:9/x"], "--keep-days"),
            (["--store", "postgresql://dvp:s3cret-pw@127.0.0.1:9/x", "--keep-days", "0"], "--keep-days"),
        ]
        for (arguments, says) in cases {
            let result = try await Self.storectl(arguments)
            #expect(result.status == 2, "\(arguments): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains(says), "\(arguments): \(result.stderr)")
            #expect(!result.stderr.contains("s3cret-pw"))
        }
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("s.db").path))

        // Valid options, a server that is not there: the connection error names no password either.
        let unreachable = try await Self.storectl(
            ["--store", "postgresql://dvp:s3cret-pw@127.0.0.1:9/x", "--keep-days", "30"])
        #expect(unreachable.status != 0 && !unreachable.stderr.isEmpty, "\(unreachable.stderr)")
        #expect(!unreachable.stderr.contains("s3cret-pw"), "\(unreachable.stderr)")
    }
}

private enum Retention {
    static func today() -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: Date())
    }
}
