import Foundation
import Kafka
import TestSupport
import Testing
import WorkerCore

/// The worker on PostgreSQL under concurrency and faults: two workers, kill -9, a database restart, SIGTERM.
@Suite("Worker on PostgreSQL", .serialized, .timeLimit(.minutes(6)))
struct PostgresWorkerTests {
    static let storectl = TestEnvironment.binary("storectl")

    @Test("Two workers in one group: store equals the oracle and no version ever decreases (audit trigger)")
    func twoWorkers() async throws {
        let harness = try PipelineHarness()
        try await harness.startBroker()
        let store = try await TestPostgres.freshDatabase("worker")
        #expect(try await runCommand(Self.storectl, ["audit-install", "--store", store]).status == 0)
        let (events, oracle) = try await harness.generate(patients: 60, days: 5, seed: 21, extra: EndToEndTests.messyStream)
        try await harness.publish(events)

        let a = try harness.startWorker(store: store, extra: ["--batch-size", "200"], name: "worker-a")
        let b = try harness.startWorker(store: store, extra: ["--batch-size", "200"], name: "worker-b")
        #expect(await a.waitForExit(timeout: .seconds(150)) == 0, "\(a.stderr.suffix(2000))")
        #expect(await b.waitForExit(timeout: .seconds(150)) == 0, "\(b.stderr.suffix(2000))")

        let differences = await oracle.differences(from: try harness.storeDump(store))
        #expect(differences.isEmpty, "store differs from the oracle: \(differences)")
        let audit = try await runCommand(Self.storectl, ["audit-check", "--store", store])
        #expect(audit.status == 0, "version decreased: \(audit.stdout) \(audit.stderr)")
        // A dead-letter record may be written twice after a rebalance (at-least-once); consumers dedupe by origin.
        #expect(try await harness.deadLetterOrigins().count == oracle.invalid.count)
        for p in try await harness.committedVersusEnd(group: "workers") {
            #expect(p.committed == p.end, "partition \(p.partition): committed \(p.committed), end \(p.end)")
        }
    }

    @Test("kill -9 mid-stream, then a restart: same oracle result")
    func killNineAndRestart() async throws {
        let harness = try PipelineHarness()
        try await harness.startBroker()
        let store = try await TestPostgres.freshDatabase("worker")
        let (events, oracle) = try await harness.generate(patients: 100, days: 6, seed: 22, extra: EndToEndTests.messyStream)
        try await harness.publish(events)

        let victim = try harness.startWorker(store: store, untilCaughtUp: false, extra: ["--batch-size", "50"])
        let probe = try await WorkerProbe(victim)
        let progressed = await eventually(timeout: .seconds(60)) {
            (await probe.metric(.recordsConsumed) ?? 0) >= 1000
        }
        #expect(progressed, "worker made no progress: \(victim.stderr.suffix(1500))")
        victim.signal(SIGKILL)
        _ = await victim.waitForExit(timeout: .seconds(10))
        let partial = try await harness.storeDump(store)
        #expect(oracle.differences(from: partial).count > 0, "killed too late to matter")

        let successor = try harness.startWorker(store: store, name: "successor")
        #expect(await successor.waitForExit(timeout: .seconds(150)) == 0, "\(successor.stderr.suffix(2000))")
        let differences = await oracle.differences(from: try harness.storeDump(store))
        #expect(differences.isEmpty, "store differs from the oracle: \(differences)")
    }

    @Test("PostgreSQL restarted mid-stream: the worker pauses, reports not-ready, resumes; same oracle result")
    func postgresRestart() async throws {
        let harness = try PipelineHarness()
        try await harness.startBroker()
        let pgDir = harness.directory.appendingPathComponent("pg")
        let started = try await runCommand(TestEnvironment.script("pg-test-cluster.sh"), ["start", pgDir.path, "auto"])
        try #require(started.status == 0, "\(started.stderr)")
        defer { _ = try? ChildProcess.runBlocking(TestEnvironment.script("pg-test-cluster.sh"), ["stop", pgDir.path]) }
        let store = started.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let port = try #require(URLComponents(string: store)?.port, "no port in \(store)")

        let worker = try harness.startWorker(store: store, untilCaughtUp: false, extra: ["--batch-size", "100"])
        let probe = try await WorkerProbe(worker)
        let oracleFile = harness.directory.appendingPathComponent("oracle-live.tsv")
        let generator = try ChildProcess(
            TestEnvironment.binary("producer"),
            ["generate", "--brokers", harness.bootstrap, "--topic", harness.topic, "--patients", "60", "--days", "6",
             "--seed", "23", "--start-day", "2026-09-01", "--rate", "500", "--oracle-out", oracleFile.path]
                + EndToEndTests.messyStream,
            directory: harness.directory)
        // ~5,000 events at 500/s: records keep arriving for ~8 s after the stop below, so the worker must write
        // while the server is down (at 1500/s a worker that kept up could store everything before the stop, and a
        // loaded CI run then saw no failure at all).
        #expect(await eventually(timeout: .seconds(60)) {
            (await probe.metric(.recordsConsumed) ?? 0) >= 1000
        })

        // A real stop of the server (immediate = crash-like), a pause, then the server back.
        let stopped = try await runCommand(TestEnvironment.script("pg-test-cluster.sh"), ["stop", pgDir.path])
        #expect(stopped.status == 0, "\(stopped.stderr)")
        try #require(generator.isRunning, "the stream ended before the server stopped: nothing was written while it was down")
        let notReady = await eventually(timeout: .seconds(20)) { await probe.get("/readyz")?.status == 503 }
        #expect(notReady, "the worker never reported not-ready while PostgreSQL was down")
        // The poll thread applies the pause on its next iteration (within ~100 ms of the health change).
        #expect(await eventually(timeout: .seconds(10)) { await probe.metric(.paused) == 1 })
        try await Task.sleep(for: .seconds(2))
        let restarted = try await runCommand(TestEnvironment.script("pg-test-cluster.sh"), ["start", pgDir.path, "\(port)"])
        #expect(restarted.status == 0, "\(restarted.stderr)")
        #expect(await eventually(timeout: .seconds(30)) { await probe.get("/readyz")?.status == 200 })

        #expect(await generator.waitForExit(timeout: .seconds(120)) == 0, "\(generator.stderr.suffix(1000))")
        let oracle = try Oracle(contentsOf: oracleFile)
        let converged = try await eventually(timeout: .seconds(60), interval: .seconds(1)) {
            await oracle.differences(from: try harness.storeDump(store)).isEmpty
        }
        let finalDump = try await harness.storeDump(store)
        #expect(converged, "store differs: \(oracle.differences(from: finalDump))")
        #expect(worker.metStoreOutage, "the outage was never met: \(worker.stderr.suffix(2000))")
        worker.signal(SIGTERM)
        #expect(await worker.waitForExit(timeout: .seconds(30)) == 0)
    }

    @Test("SIGTERM under load: exit 0 within the deadline; a restart re-processes only the uncommitted tail")
    func sigtermUnderLoad() async throws {
        let harness = try PipelineHarness()
        try await harness.startBroker()
        let store = try await TestPostgres.freshDatabase("worker")
        let oracleFile = harness.directory.appendingPathComponent("oracle-live.tsv")
        let generator = try ChildProcess(
            TestEnvironment.binary("producer"),
            ["generate", "--brokers", harness.bootstrap, "--topic", harness.topic, "--patients", "60", "--days", "6",
             "--seed", "24", "--start-day", "2026-09-01", "--rate", "2000", "--oracle-out", oracleFile.path],
            directory: harness.directory)
        let first = try harness.startWorker(store: store, untilCaughtUp: false,
                                            extra: ["--batch-size", "200", "--drain-timeout", "10"])
        let probe = try await WorkerProbe(first)
        #expect(await eventually(timeout: .seconds(60)) {
            (await probe.metric(.recordsConsumed) ?? 0) >= 2000
        })
        let signalled = ContinuousClock.now
        first.signal(SIGTERM)
        let status = await first.waitForExit(timeout: .seconds(20))
        #expect(status == 0, "\(first.stderr.suffix(2000))")
        #expect(ContinuousClock.now - signalled < .seconds(10), "drain took longer than --drain-timeout")
        let consumedFirst = first.stderr.split(separator: "\n").last { $0.contains("\"worker stopped\"") }
            .flatMap { line in line.range(of: "\"consumed\":").map { Int64(line[$0.upperBound...].prefix { $0.isNumber }) } }
        let committedAtStop = try await harness.committedVersusEnd(group: "workers").map { max(0, $0.committed) }
            .reduce(0, +)
        #expect(consumedFirst ?? -1 == committedAtStop, "processed but uncommitted records at SIGTERM")

        #expect(await generator.waitForExit(timeout: .seconds(120)) == 0)
        let second = try harness.startWorker(store: store, name: "second")
        #expect(await second.waitForExit(timeout: .seconds(120)) == 0, "\(second.stderr.suffix(2000))")
        let ends = try await harness.committedVersusEnd(group: "workers")
        let total = ends.map(\.end).reduce(0, +)
        #expect(parseSummary(second.stdout)["consumed"] == total - committedAtStop)
        let oracle = try Oracle(contentsOf: oracleFile)
        let dump = try await harness.storeDump(store)
        #expect(oracle.differences(from: dump).isEmpty)
    }
}
