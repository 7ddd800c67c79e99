import DailyValueContract
import FHIRServerStore
import Foundation
import Kafka
import TestSupport
import Testing
import WorkerCore

/// The worker writing to a FHIR server: real sekmet-fhir (strict validation of every Observation) for the oracle and
/// a server restart, the FHIR double for a 429 storm, 5xx bursts, a slow server and refused records. Each ends with
/// the store equal to the oracle (0 lost) and no version of any Observation lower than the one before it (0 stale
/// overwrites).
@Suite("Worker on a FHIR server", .serialized, .timeLimit(.minutes(6)))
struct FHIRWorkerTests {
    @Test("sekmet-fhir: store equals the oracle, no stale overwrite, invalid events dead-lettered, offsets at the end")
    func sekmetMatchesOracle() async throws {
        let harness = try PipelineHarness()
        try await harness.startBroker()
        let server = try await TestFHIRServer(validation: .strict)
        let (events, oracle) = try await harness.generate(patients: 20, days: 4, seed: 31, extra: EndToEndTests.messyStream)
        try await harness.publish(events)
        let store = "fhir+" + server.baseURL

        let worker = try harness.startWorker(store: store, extra: ["--batch-size", "200"])
        #expect(await worker.waitForExit(timeout: .seconds(240)) == 0, "\(worker.stderr.suffix(2000))")
        #expect(worker.stderr.contains("\"FHIR server\""), "no capabilities logged")

        let differences = await oracle.differences(from: try harness.storeDump(store))
        #expect(differences.isEmpty, "store differs from the oracle: \(differences)")
        let history = try await FHIRHistory.staleOverwrites(baseURL: server.baseURL)
        #expect(history.decreases == 0 && history.versions >= oracle.versions.count, "\(history)")
        #expect(try await harness.deadLetterOrigins().count == oracle.invalid.count)
        for p in try await harness.committedVersusEnd(group: "workers") {
            #expect(p.committed == p.end, "partition \(p.partition): committed \(p.committed), end \(p.end)")
        }
    }

    @Test("sekmet-fhir restarted mid-stream: the worker pauses, reports not-ready, resumes; same oracle result")
    func sekmetRestart() async throws {
        let harness = try PipelineHarness()
        try await harness.startBroker()
        let server = try await TestFHIRServer(validation: .strict)
        let store = "fhir+" + server.baseURL
        let worker = try harness.startWorker(
            store: store, untilCaughtUp: false, extra: ["--batch-size", "50", "--store-timeout", "5"])
        let probe = try await WorkerProbe(worker)
        let (generator, oracleFile) = try Self.liveStream(harness, patients: 30, days: 4, seed: 32, rate: 150)
        #expect(await eventually(timeout: .seconds(60)) {
            (await probe.metric(.recordsConsumed) ?? 0) >= 100
        })
        #expect(await server.stop())
        let notReady = await eventually(timeout: .seconds(20)) { await probe.get("/readyz")?.status == 503 }
        #expect(notReady, "never not-ready while the FHIR server was down: \(worker.stderr.suffix(3000))")
        try await Task.sleep(for: .seconds(2))
        try await server.restart()
        #expect(await eventually(timeout: .seconds(60)) { await probe.get("/readyz")?.status == 200 })

        _ = try await Self.converge(harness, store, generator: generator, oracle: oracleFile)
        #expect(worker.metStoreOutage, "the outage was never met: \(worker.stderr.suffix(2000))")
        let history = try await FHIRHistory.staleOverwrites(baseURL: server.baseURL)
        #expect(history.decreases == 0, "\(history)")
        worker.signal(SIGTERM)
        #expect(await worker.waitForExit(timeout: .seconds(30)) == 0, "\(worker.stderr.suffix(2000))")
    }

    @Test("FHIR double: a 429 storm, 5xx bursts and a slow server: 0 lost, 0 stale overwrites")
    func throttledFailingSlowServer() async throws {
        let harness = try PipelineHarness()
        try await harness.startBroker()
        let double = try await FHIRDouble()
        let store = "fhir+" + double.baseURL
        try await double.set(["bump_identical": true])

        let worker = try harness.startWorker(
            store: store, untilCaughtUp: false, extra: ["--batch-size", "100", "--store-timeout", "2"])
        let probe = try await WorkerProbe(worker)
        let (generator, oracleFile) = try Self.liveStream(harness, patients: 40, days: 5, seed: 33, rate: 100)
        let flowing = await eventually(timeout: .seconds(60)) {
            (await probe.metric(.recordsConsumed) ?? 0) >= 200
        }
        #expect(flowing, "worker made no progress: \(worker.stderr.suffix(3000))")
        // Each fault is switched on while the stream flows and off only once the worker met it.
        try await double.set(["throttle": 40, "retry_after": "0.2"])
        let throttled = try await eventually(timeout: .seconds(60)) { try await double.stats()["throttled"] == 40 }
        let stats = try await double.stats()
        #expect(throttled, "\(stats) \(worker.stderr.suffix(3000))")
        try await double.set(["fail": 10, "fail_status": 502])
        #expect(try await eventually(timeout: .seconds(60)) { try await double.stats()["failed"] == 10 })
        try await double.set(["delay_ms": 2500])  // past --store-timeout 2: timeouts until the server speeds up
        #expect(await eventually(timeout: .seconds(60)) { worker.stderr.contains("store timeout error") })
        try await double.set(["delay_ms": 50])

        let oracle = try await Self.converge(harness, store, generator: generator, oracle: oracleFile)
        let finalStats = try await double.stats()
        #expect(finalStats["decreases"] == 0, "\(finalStats)")
        worker.signal(SIGTERM)
        #expect(await worker.waitForExit(timeout: .seconds(30)) == 0, "\(worker.stderr.suffix(2000))")
        #expect(try await harness.deadLetterOrigins().count == oracle.invalid.count)
    }

    @Test("Refused credentials (401): not ready, paused, nothing dead-lettered; a fixed token file resumes the stream")
    func refusedCredentialsPauseUntilTheTokenFileIsFixed() async throws {
        let harness = try PipelineHarness()
        try await harness.startBroker()
        let double = try await FHIRDouble()
        let (events, oracle) = try await harness.generate(patients: 10, days: 3, seed: 35)
        try await harness.publish(events)
        let tokenFile = harness.directory.appendingPathComponent("fhir-token")
        try "secret-1".write(to: tokenFile, atomically: true, encoding: .utf8)
        let store = "fhir+" + double.baseURL

        let worker = try harness.startWorker(
            store: store, untilCaughtUp: false, environment: ["DVP_FHIR_TOKEN_FILE": tokenFile.path])
        let probe = try await WorkerProbe(worker)
        try await double.set(["tokens": ["secret-2"]])  // the server rotated; the mounted secret has not yet
        #expect(await eventually(timeout: .seconds(30)) {
            await probe.get("/readyz").map { $0.status == 503 && $0.body == "store-unauthorized\n" } == true
        })
        #expect(await eventually(timeout: .seconds(10)) { await probe.metric(.paused) == 1 })
        #expect(worker.stderr.contains("store unauthorized error"), "\(worker.stderr.suffix(2000))")
        try "secret-2\n".write(to: tokenFile, atomically: true, encoding: .utf8)
        #expect(await eventually(timeout: .seconds(30)) { await probe.get("/readyz")?.status == 200 })
        var reader = FHIRStoreConfiguration(baseURL: double.baseURL)
        reader.authorization = .bearerTokenFile(path: tokenFile.path)
        let server = try await FHIRObservationStore(configuration: reader)
        let converged = try await eventually(timeout: .seconds(60), interval: .seconds(1)) {
            let stored = try await server.allVersions()
            return oracle.differences(from: Dictionary(uniqueKeysWithValues: stored.map { ($0.key.key, $0.value) }))
                .isEmpty
        }
        #expect(converged)
        await server.close()
        worker.signal(SIGTERM)
        #expect(await worker.waitForExit(timeout: .seconds(30)) == 0, "\(worker.stderr.suffix(2000))")
        #expect(try await harness.deadLetters().isEmpty)
    }

    /// Waits for the live stream's producer, then until the store equals its oracle (0 lost); returns the oracle.
    @discardableResult
    static func converge(_ harness: PipelineHarness, _ store: String, generator: ChildProcess, oracle file: URL)
        async throws -> Oracle
    {
        #expect(await generator.waitForExit(timeout: .seconds(120)) == 0, "\(generator.stderr.suffix(1000))")
        let oracle = try Oracle(contentsOf: file)
        let converged = try await eventually(timeout: .seconds(180), interval: .seconds(2)) {
            await oracle.differences(from: try harness.storeDump(store)).isEmpty
        }
        let finalDump = try await harness.storeDump(store)
        #expect(converged, "store differs: \(oracle.differences(from: finalDump))")
        return oracle
    }

    /// A producer publishing a messy generated stream at `rate` events/s while the test injects faults, and the
    /// file its oracle goes to (complete once the producer exits).
    static func liveStream(_ harness: PipelineHarness, patients: Int, days: Int, seed: Int, rate: Int) throws
        -> (ChildProcess, URL)
    {
        let oracleFile = harness.directory.appendingPathComponent("oracle-live.tsv")
        let generator = try ChildProcess(
            TestEnvironment.binary("producer"),
            ["generate", "--brokers", harness.bootstrap, "--topic", harness.topic, "--patients", "\(patients)",
             "--days", "\(days)", "--seed", "\(seed)", "--start-day", "2026-09-01", "--rate", "\(rate)",
             "--oracle-out", oracleFile.path] + EndToEndTests.messyStream,
            directory: harness.directory)
        return (generator, oracleFile)
    }

    @Test("Records the FHIR server refuses (referential integrity) are dead-lettered with its reason; the rest stored")
    func refusedRecordsAreDeadLettered() async throws {
        let harness = try PipelineHarness()
        try await harness.startBroker()
        let (events, oracle) = try await harness.generate(patients: 6, days: 3, seed: 34)
        let patients = Set(oracle.versions.keys.map { String($0.split(separator: "/")[0]) }).sorted()
        let missing = try #require(patients.last)
        let double = try await FHIRDouble(patients: Array(patients.dropLast()))
        try await double.set(["require_patient": true])
        try await harness.publish(events)
        let store = "fhir+" + double.baseURL

        let worker = try harness.startWorker(store: store)
        #expect(await worker.waitForExit(timeout: .seconds(120)) == 0, "\(worker.stderr.suffix(2000))")
        var expected = oracle
        expected.versions = oracle.versions.filter { !$0.key.hasPrefix(missing + "/") }
        #expect(expected.versions.count < oracle.versions.count)
        let differences = await expected.differences(from: try harness.storeDump(store))
        #expect(differences.isEmpty, "store differs: \(differences)")
        let deadLetters = try await harness.deadLetters()
        #expect(!deadLetters.isEmpty)
        for record in deadLetters {
            let headers = Dictionary(
                record.headers.map { ($0.key, String(decoding: $0.value ?? [], as: UTF8.self)) },
                uniquingKeysWith: { a, _ in a })
            #expect(headers["__connect.errors.stage"] == "STORE")
            #expect(headers["__connect.errors.exception.class.name"] == "StoreRejected")
            #expect(headers["__connect.errors.exception.message"]?.contains("Patient/\(missing) not found") == true)
            #expect(record.key.map { String(decoding: $0, as: UTF8.self) } == missing)
        }
        for p in try await harness.committedVersusEnd(group: "workers") {
            #expect(p.committed == p.end, "partition \(p.partition): committed \(p.committed), end \(p.end)")
        }
    }

    @Test("Copies written under another version tag system are never overwritten: each record is dead-lettered")
    func copiesWithoutOurTagAreDeadLettered() async throws {
        let harness = try PipelineHarness()
        try await harness.startBroker()
        let (events, _) = try await harness.generate(patients: 2, days: 2, seed: 35)
        let double = try await FHIRDouble()
        try await harness.publish(events)
        let store = "fhir+" + double.baseURL
        let other = try harness.startWorker(
            store: store, group: "other-system", extra: ["--fhir-version-tag-system", "urn:example:other"],
            name: "other")
        #expect(await other.waitForExit(timeout: .seconds(120)) == 0, "\(other.stderr.suffix(2000))")
        let stored = try #require(try await double.stats()["stored"])

        let worker = try harness.startWorker(store: store)
        #expect(await worker.waitForExit(timeout: .seconds(120)) == 0, "\(worker.stderr.suffix(2000))")
        await #expect(try harness.storeDump(store).isEmpty)  // nothing carries the default tag: nothing was overwritten
        let stats = try await double.stats()
        #expect(stats["stored"] == stored && stats["decreases"] == 0)
        let deadLetters = try await harness.deadLetters()
        let published = try String(contentsOf: events, encoding: .utf8).split(separator: "\n").count
        #expect(deadLetters.count == published)
        for record in deadLetters {
            let headers = Dictionary(
                record.headers.map { ($0.key, String(decoding: $0.value ?? [], as: UTF8.self)) },
                uniquingKeysWith: { a, _ in a })
            #expect(headers["__connect.errors.stage"] == "STORE")
            #expect(headers["__connect.errors.exception.message"]?.contains("no event version tag") == true)
        }
    }
}
