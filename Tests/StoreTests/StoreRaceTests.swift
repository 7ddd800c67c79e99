import DailyValueContract
import Foundation
import StoreCore
import TestSupport
import Testing

/// Two writer processes upsert overlapping identities with interleaved versions into one store.
@Suite(.timeLimit(.minutes(3)))
struct StoreRaceTests {
    static let identities = 120
    static let topVersion = 12

    /// Mirrors `dvp-test-tools race`: identity `i` ends at version `top - i % 3`.
    static func expectedDump() -> String {
        (0..<identities).map { index in
            let identity = ObservationIdentity(
                patient: "race-p\(index / 20)", metric: index % 2 == 0 ? "heart_rate" : "step_count",
                day: String(format: "2026-01-%02d", 1 + (index / 2) % 10))
            return (identity.key, topVersion - index % 3)
        }.sorted { $0.0 < $1.0 }.map { "\($0.0)\t\($0.1)\n" }.joined()
    }

    @Test(arguments: StoreKind.databases)
    func twoWriterProcessesEndAtTheHighestVersions(kind: StoreKind) async throws {
        try await TestStores.withFreshLocation(kind) { location in
            let store = ["--store", Self.text(location)]
            try await ChildProcess.storectl(["audit-install"] + store)
            let writers = try await withThrowingTaskGroup(of: ProcessResult.self) { group in
                for writer in 0..<2 {
                    group.addTask {
                        try await ChildProcess.testTools(
                            [
                                "race", "--writer", "\(writer)", "--writers", "2", "--identities",
                                "\(Self.identities)",
                                "--versions", "\(Self.topVersion)", "--batch", "25",
                            ] + store)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(writers.allSatisfy { $0.standardOutput.hasPrefix("writer ") })

            let dump = try await ChildProcess.storectl(["dump"] + store)
            #expect(dump.standardOutput == Self.expectedDump())

            let audit = try await ChildProcess.storectl(["audit-check"] + store)
            #expect(audit.standardOutput.hasPrefix("decreases: 0\n"))
            let updates = audit.standardOutput.split(separator: "\n").last.flatMap {
                Int($0.dropFirst("updates: ".count))
            }
            #expect((updates ?? 0) > 0, "the audit trigger logged no update: \(audit.standardOutput)")

            // The counters saw every record both writers sent.
            let opened = try await TestStores.open(location)
            let total = try await opened.outcomeCounts().map(\.count).reduce(0, +)
            await opened.close()
            let sent = (0..<Self.identities).map { index in
                (1...(Self.topVersion - index % 3)).map { $0 % 3 == 0 ? 2 : 1 }.reduce(0, +)
            }.reduce(0, +)
            #expect(total == Int64(sent))
        }
    }

    @Test func auditCheckFailsOnADecrease() async throws {
        try await TestStores.withFreshLocation(.sqlite) { location in
            let store = ["--store", Self.text(location)]
            try await ChildProcess.storectl(["audit-install"] + store)
            let opened = try await TestStores.open(location)
            _ = try await opened.upsert([record(version: 3)])
            await opened.close()
            try await TestStores.rawExecute(location, "UPDATE observation SET version = 1")
            let audit = try await ChildProcess.run(try ChildProcess.storectl(), ["audit-check"] + store)
            #expect(audit.status == 1)
            #expect(audit.standardOutput.hasPrefix("decreases: 1\n"))
        }
    }

    @Test func badArgumentsExitWithStatusTwo() async throws {
        let storectl = try ChildProcess.storectl()
        for arguments in [
            ["counts", "--store", "mysql://x"], ["show", "--store", "sqlite:/tmp/x.db"], ["nope"],
            ["dump", "--bogus", "1"], ["_race", "--store", "sqlite:/tmp/x.db", "--writer", "3", "--writers", "2"],
        ] {
            let result = try await ChildProcess.run(storectl, arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(!result.standardError.isEmpty, "\(arguments)")
        }
        // The race writer moved out of storectl (above, `_race` is now an unknown command) into the test tools.
        let race = ["race", "--store", "sqlite:/tmp/x.db", "--writer", "3", "--writers", "2"]
        let result = try await ChildProcess.run(try TestEnvironment.requireBinary("dvp-test-tools").path, race)
        #expect(result.status == 2, "\(race)")
        #expect(!result.standardError.isEmpty, "\(race)")
    }

    static func text(_ location: StoreLocation) -> String {
        switch location {
        case .sqlite(let path): return "sqlite:\(path)"
        case .postgres(let connectionString): return connectionString
        case .fhir(let baseURL): return "fhir+" + baseURL
        }
    }
}
