import Foundation
import TestSupport
import Testing

/// Without a readable tz database every event naming a zone would be refused, so the services refuse to start:
/// exit 2 and a message that says what is missing and where it was looked for.
@Suite struct ZoneDatabaseStartupTests {
    static let missing = "/nonexistent/zoneinfo"

    @Test func theWorkerRefusesToStartWithoutTheTimeZoneDatabase() async throws {
        let result = try await runCommand(
            TestEnvironment.binary("worker"), ["--brokers", "b:1", "--allow-development-key"],
            environment: ["TZDIR": Self.missing])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("no IANA time-zone database at \(Self.missing)"), "\(result.stderr)")
    }

    @Test func theGatewayRefusesToStartWithoutTheTimeZoneDatabase() async throws {
        let result = try await runCommand(
            TestEnvironment.binary("ingest"), ["--brokers", "b:1", "--insecure-no-auth"],
            environment: ["TZDIR": Self.missing])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("no IANA time-zone database at \(Self.missing)"), "\(result.stderr)")
    }
}
