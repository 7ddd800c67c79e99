import Foundation
import TestSupport
import Testing

/// Issue 38 (item 5): `ingest --erasure-store` answers 403 `patient-erased` for a request holding a record of a
/// person the workers' erasure ledger refuses, naming the record's index (never the patient id, in the answer or the
/// log) and publishing nothing; other requests get 202; an erasure made while it runs reaches it within the refresh.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct IngestErasureTests {
    static let key = ["DVP_ID_KEY": "test-id-key-0123456789abcdef"]

    static func erase(_ patient: String, store: String) async throws {
        let result = try await runCommand(
            TestEnvironment.binary("storectl"),
            ["erase", "--store", store, "--patient", patient, "--reference", "ticket-\(patient.count)"],
            environment: key)
        guard result.status == 0 else { throw TestSetupError("storectl erase: \(result.stdout) \(result.stderr)") }
    }

    @Test(
        "403 patient-erased by index, nothing published; 202 for the others; a later erasure reaches the gateway",
        arguments: ["sqlite", "postgres"])
    func erasedPersonsAreRefused(_ kind: String) async throws {
        let stack = try GatewayStack()
        try await stack.startBroker()
        let store =
            kind == "sqlite"
            ? "sqlite:\(stack.directory.path)/observations.sqlite" : try await TestPostgres.freshDatabase("dvp_ingest")
        let events = try await TestEvents.lines(100, in: stack.directory)
        var byPatient: [String: [String]] = [:]
        for line in events { byPatient[TestEvents.patient(line), default: []].append(line) }
        let patients = byPatient.keys.sorted()
        try #require(patients.count >= 3)
        let (erased, later, kept) = (patients[0], patients[1], patients[2])
        try await Self.erase(erased, store: store)

        try await stack.startGateway(
            ["--insecure-no-auth", "--erasure-store", store, "--erasure-refresh", "0.2"], environment: Self.key)
        #expect(await stack.metricsEventually(contain: "dvp_ingest_erasure_refused_persons 1"))

        let mixed = [byPatient[kept]![0], byPatient[erased]![0], byPatient[later]![0], byPatient[erased]![1]]
        let refused = try await stack.curl(
            CurlResponse.post(
                stack.url, file: try stack.file("mixed.json", TestEvents.array(mixed)), contentType: "application/json")
        )
        #expect(refused.status == 403, "\(refused.text)")
        #expect(refused.contentType == "application/problem+json")
        #expect(refused.json?["type"] as? String == "urn:dvp:ingest:patient-erased", "\(refused.text)")
        #expect(refused.errors.map { $0["index"] as? Int } == [1, 3], "\(refused.text)")
        #expect(refused.errors.allSatisfy { $0["pointer"] as? String == "/patient" })
        #expect(!refused.text.contains(erased), "the answer never names the patient")
        #expect(try await stack.records().isEmpty, "nothing of the request was published")

        let others = [byPatient[kept]![0], byPatient[later]![0]]
        let accepted = try await stack.curl(
            CurlResponse.post(
                stack.url, file: try stack.file("others.json", TestEvents.array(others)),
                contentType: "application/json"))
        #expect(accepted.status == 202, "\(accepted.text)")
        #expect(try await stack.records().count == 2)

        // An erasure made while the gateway runs: refused after the next background read, no restart.
        try await Self.erase(later, store: store)
        #expect(await stack.metricsEventually(contain: "dvp_ingest_erasure_refused_persons 2", timeout: .seconds(10)))
        let afterwards = try await stack.curl(
            CurlResponse.post(
                stack.url, file: try stack.file("later.ndjson", TestEvents.ndjson([byPatient[later]![1]])),
                contentType: "application/x-ndjson"))
        #expect(afterwards.status == 403 && afterwards.errors.map { $0["index"] as? Int } == [0], "\(afterwards.text)")
        #expect(try await stack.records().count == 2)
        #expect(await stack.metricsEventually(contain: #"dvp_ingest_records_rejected_total{reason="erased""#))

        let log = stack.gateway?.stderr ?? ""
        #expect(!log.contains(erased) && !log.contains(later), "the log never names a patient")
    }

    @Test("a ledger with entries and no key, or under another key, stops the gateway at start (exit 2)")
    func aLedgerWithoutItsKeyIsRefused() async throws {
        let stack = try GatewayStack()
        try await stack.startBroker()
        let store = "sqlite:\(stack.directory.path)/observations.sqlite"
        try await Self.erase("pat-erased-1", store: store)
        for environment in [[:], ["DVP_ID_KEY": "another-key-0123456789abcdef"]] {
            let gateway = try ChildProcess(
                TestEnvironment.binary("ingest"),
                [
                    "--brokers-file", stack.bootstrapFile.path, "--http-port", "0", "--admin-port", "0",
                    "--insecure-no-auth", "--erasure-store", store,
                ],
                directory: stack.directory, name: "ingest", environment: environment)
            #expect(await gateway.waitForExit(timeout: .seconds(20)) == 2, "\(gateway.stderr)")
            #expect(gateway.stderr.contains("erasure ledger"), "\(gateway.stderr)")
        }
    }
}
