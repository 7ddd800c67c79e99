import Foundation
import TestSupport
import Testing

/// Through the worker into SQLite: the same input sent with `producer publish` and through the gateway (NDJSON in
/// one request, then as arrays of a few records) is stored as the same resources (`storectl dump` and `storectl
/// show`), apart from the two instants that are times of the run: `meta.lastUpdated` (the write) and `issued` (the
/// Kafka record's timestamp, the moment it was published, whoever published it).
@Suite(.serialized, .timeLimit(.minutes(6)))
struct IngestEndToEndTests {
    @Test("producer publish and POST /v1/daily-values store the same Observations")
    func sameStoredResources() async throws {
        let published = try GatewayStack(partitions: 3)
        try await published.startBroker()
        let lines = try await TestEvents.lines(60, seed: 5, in: published.directory)
        let input = try published.file("input.jsonl", TestEvents.ndjson(lines))
        let publish = try await runCommand(
            TestEnvironment.binary("producer"), ["publish", "--brokers", published.bootstrap, input.path])
        #expect(publish.status == 0, "\(publish.stderr)")

        let posted = try GatewayStack(partitions: 3)
        try await posted.startBroker()
        try await posted.startGateway(["--insecure-no-auth"])
        let whole = try await posted.curl(
            CurlResponse.post(posted.url, file: input, contentType: "application/x-ndjson"))
        #expect(whole.status == 202, "\(whole.text)")
        for start in stride(from: 0, to: 60, by: 7) {
            let part = try posted.file("part-\(start).json", TestEvents.array(Array(lines[start..<min(start + 7, 60)])))
            #expect(try await posted.curl(CurlResponse.post(posted.url, file: part)).status == 202)
        }

        let storeA = try await Self.store(published, name: "published")
        let storeB = try await Self.store(posted, name: "posted")
        let dumpA = try await Self.storectl(["dump", "--store", storeA])
        let dumpB = try await Self.storectl(["dump", "--store", storeB])
        #expect(!dumpA.isEmpty)
        #expect(dumpA == dumpB, "the same identities at the same versions")
        var different: [String] = []
        let identities = dumpA.split(separator: "\n").map { String($0.split(separator: "\t")[0]) }
        for identity in identities {
            let a = try await Self.storectl(["show", "--store", storeA, identity])
            let b = try await Self.storectl(["show", "--store", storeB, identity])
            #expect(a.contains("\"issued\":") && a.contains("\"lastUpdated\":"))
            if Self.withoutRunInstants(a) != Self.withoutRunInstants(b) { different.append(identity) }
        }
        #expect(identities.count > 20)
        #expect(
            different.isEmpty,
            "\(different.count) of \(identities.count) resources differ, e.g. \(different.first ?? "")")
    }

    /// Runs a worker on the stack's topic until it caught up; returns its SQLite store.
    static func store(_ stack: GatewayStack, name: String) async throws -> String {
        let store = "sqlite:" + stack.directory.appendingPathComponent("\(name).sqlite").path
        let worker = try ChildProcess(
            TestEnvironment.binary("worker"),
            [
                "--brokers-file", stack.bootstrapFile.path, "--store", store, "--until-caught-up", "--http-port", "0",
                "--http-address", "127.0.0.1", "--batch-ms", "50", "--group", "e2e-\(name)",
            ],
            directory: stack.directory, environment: ["DVP_ID_KEY": "ingest-e2e-id-key-0123456789abcdef"])
        let status = await worker.waitForExit(timeout: .seconds(120))
        guard status == 0 else {
            throw TestSetupError("worker \(ChildProcess.describe(status)): \(worker.stderr.suffix(2000))")
        }
        return store
    }

    static func storectl(_ arguments: [String]) async throws -> String {
        let result = try await runCommand(TestEnvironment.binary("storectl"), arguments)
        guard result.status == 0 else { throw TestSetupError("storectl \(arguments[0]) failed: \(result.stderr)") }
        return result.stdout
    }

    /// The resource without `"lastUpdated":"…"` and `"issued":"…"`, the instants of this run.
    static func withoutRunInstants(_ resource: String) -> String {
        resource.replacing(/"(lastUpdated|issued)":"[^"]*"/, with: "")
    }
}
