import Foundation
import TestSupport
import Testing
import WorkerCore

/// A frozen PostgreSQL backend (SIGSTOP on the worker's server process while events flow). Its kernel still ACKs,
/// so keepalives and `tcp_user_timeout` never fire, and `statement_timeout` is the frozen process's own business:
/// only the worker's client-side round-trip deadline (`--store-timeout`) ends the wait. The worker must turn
/// not-ready within that deadline, then recover on a replacement connection without a restart, whether the old
/// backend resumes (SIGCONT) or is gone for good (terminated while stopped — SIGTERM, as `pg_terminate_backend` sends — then SIGCONT so it exits).
extension ReliabilityTests {
    static let frozenBackendEndings = ReliabilityMode.isFull ? ["resumed", "terminated"] : ["resumed"]

    /// The worker's round-trip deadline in these scenarios (seconds).
    static let frozenStoreTimeout = 2.0

    @Test("PostgreSQL backend frozen (SIGSTOP) under load", arguments: frozenBackendEndings)
    func frozenBackend(ending: String) async throws {
        try await ScenarioRun.perform("PostgreSQL backend frozen (SIGSTOP), then \(ending)", ownPostgres: true) { run in
            // Small client bounds: 2 s to connect; lock waits behind the frozen transaction fail after 1 s.
            let name = "dvp-frozen-\(ending)"
            let storeURL = run.store.url(
                adding: "application_name=\(name)&connect_timeout=2&options=-c%20lock_timeout%3D1s")
            let generator = try run.startGenerator(patients: 40, days: 5, seed: 303, rate: 400, extra: Self.messy)
            // No version cache, hence no pre-warm read: every statement the worker sends is part of an upsert.
            let worker = try await run.startWorker(
                "worker-1",
                extra: Self.smallBatches + ["--store-timeout", "\(Self.frozenStoreTimeout)", "--version-cache", "0"],
                storeURL: storeURL)
            run.check(await worker.waitForConsumed(atLeast: 500), "no progress: \(worker.process.stderr.suffix(800))")
            // One backend per store connection (the default: each batch's lanes on two); one of them freezes, so
            // the batch waits for that lane while the other lane's transaction commits.
            let pids = try await run.store.backendPIDs(applicationName: name)
            let connections = WorkerConfiguration.defaultPostgresConnections
            guard pids.count == connections, let frozen = pids.first else {
                throw TestSetupError("expected \(connections) backends named \(name), found \(pids)")
            }
            let errorsBefore = await worker.metric(.storeErrors)

            guard kill(frozen, SIGSTOP) == 0 else { throw TestSetupError("kill -STOP \(frozen): errno \(errno)") }
            defer { kill(frozen, SIGCONT) }
            let stopped = ContinuousClock.now
            let notReady = await eventually(timeout: .seconds(10), interval: .milliseconds(10)) {
                await worker.probe.get("/readyz")?.status == 503
            }
            let toNotReady = (ContinuousClock.now - stopped).inSeconds
            run.check(notReady, "still ready 10 s after the backend froze")
            run.check(toNotReady < Self.frozenStoreTimeout + 3, "not-ready only \(toNotReady) s after the freeze")
            let errorsRose = await eventually(timeout: .seconds(5)) {
                await worker.metric(.storeErrors) > errorsBefore
            }
            run.check(errorsRose, "dvp_store_errors_total did not rise")
            run.check(
                worker.process.stderr.contains("store timeout error"),
                "no client-side timeout logged: \(worker.process.stderr.suffix(800))")

            // Frozen a while longer: retries on a replacement may wait for the frozen transaction's row locks.
            try await Task.sleep(for: .seconds(3))
            let readyWhileFrozen = await worker.probe.get("/readyz")?.status == 200
            if ending == "terminated" { try run.store.terminateBackend(frozen) }
            kill(frozen, SIGCONT)
            let continued = ContinuousClock.now
            let ready = await eventually(timeout: .seconds(30), interval: .milliseconds(50)) {
                await worker.probe.get("/readyz")?.status == 200
            }
            let toReady = (ContinuousClock.now - continued).inSeconds
            run.check(ready, "not ready 30 s after SIGCONT: \(worker.process.stderr.suffix(800))")
            let oldGone = await eventually(timeout: .seconds(10)) {
                await (try? run.store.backendPIDs(applicationName: name).contains(frozen)) == false
            }
            run.check(oldGone, "the frozen backend \(frozen) never exited")
            let current = try await run.store.backendPIDs(applicationName: name)
            run.check(
                current.count == connections && !current.contains(frozen), "the worker's backends now: \(current)")

            let errors = Int(await worker.metric(.storeErrors) - errorsBefore)
            run.note(
                String(format: "not-ready %.2f s after SIGSTOP; ", toNotReady)
                    + (readyWhileFrozen
                        ? "ready again on a replacement before SIGCONT; "
                        : String(format: "ready %.2f s after SIGCONT; ", toReady))
                    + "\(errors) store errors; backend \(frozen) → \(current.map(String.init).joined(separator: ","))")
            try await run.finish(generator)
            try await run.drainAndVerify()
        }
    }
}
