import Foundation
import TestSupport
import Testing

/// A FHIR server's 5xx text (an OperationOutcome may name the patient and the value) reaches no log line and not
/// `/readyz`: the log carries the status, the issue code and a SHA-256 of the body; `/readyz` a short category.
@Suite("No server text in logs or probes", .serialized, .timeLimit(.minutes(3)))
struct ServerTextTests {
    @Test("FHIR 5xx with a marker in its body: not in the log, /readyz answers store-unavailable; then recovers")
    func serverErrorTextStaysOut() async throws {
        let marker = "MARKER-S3CR3T-4242"
        let harness = try PipelineHarness()
        try await harness.startBroker()
        let double = try await FHIRDouble()
        let store = "fhir+" + double.baseURL
        let worker = try harness.startWorker(store: store, untilCaughtUp: false, extra: ["--batch-size", "50"])
        let probe = try await WorkerProbe(worker)
        #expect(await eventually(timeout: .seconds(30)) { await probe.get("/readyz")?.status == 200 })

        try await double.set([
            "fail": 1_000_000, "fail_status": 500, "fail_diagnostics": "Patient/p-\(marker) has heart rate 71.4",
        ])
        let (events, oracle) = try await harness.generate(patients: 5, days: 2, seed: 51)
        try await harness.publish(events)
        let notReady = await eventually(timeout: .seconds(60)) {
            await probe.get("/readyz").map { $0.status == 503 && $0.body == "store-unavailable\n" } == true
        }
        let answer = await probe.get("/readyz")
        #expect(notReady, "/readyz: \(String(describing: answer)); \(worker.stderr.suffix(2000))")
        #expect(answer.map { !$0.body.contains(marker) } == true)
        #expect(await eventually(timeout: .seconds(30)) { worker.stderr.contains("store upsert failed") })
        #expect(worker.stderr.contains("HTTP 500, issue code exception, body sha256 "), "\(worker.stderr.suffix(2000))")

        try await double.set(["fail": 0])
        #expect(await eventually(timeout: .seconds(60)) { await probe.get("/readyz")?.status == 200 })
        let converged = await eventually(timeout: .seconds(60), interval: .seconds(1)) {
            await (try? oracle.differences(from: harness.storeDump(store)).isEmpty) == true
        }
        #expect(converged, "the store never caught up after the server recovered")
        worker.signal(SIGTERM)
        #expect(await worker.waitForExit(timeout: .seconds(30)) == 0, "\(worker.stderr.suffix(2000))")
        #expect(!worker.stderr.contains(marker), "the server's text reached the log: \(worker.stderr.suffix(3000))")
        for line in worker.stderr.split(separator: "\n") {
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) is [String: Any], "not JSON: \(line)")
        }
    }
}
