import Foundation
import TestSupport
import Testing

/// The id-key rule with the real executable: no key and a real-looking broker → exit 2 before anything is touched;
/// a devbroker's own bootstrap file → it runs with the development key and says so.
@Suite("Worker id key (processes)", .serialized, .timeLimit(.minutes(2)))
struct WorkerIDKeyProcessTests {
    /// Clears every way a key or the opt-in could leak in from the environment the tests run in.
    static let noKey = ["DVP_ID_KEY": "", "DVP_ID_KEY_FILE": "", "DVP_ALLOW_DEVELOPMENT_KEY": ""]

    @Test("No id key against a real broker: exit 2, the message says what to do, no store is created")
    func refusesWithoutKey() async throws {
        let directory = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let storePath = directory.appendingPathComponent("observations.sqlite").path
        let result = try await runCommand(
            TestEnvironment.binary("worker"),
            ["--brokers", "kafka-1.example.internal:9092", "--store", "sqlite:\(storePath)", "--http-port", "0"],
            environment: Self.noKey)
        #expect(result.status == 2, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("configuration error: no id key"), "stderr: \(result.stderr)")
        #expect(result.stderr.contains("--id-key-file") && result.stderr.contains("--allow-development-key"))
        #expect(!FileManager.default.fileExists(atPath: storePath), "the store was opened before the refusal")
    }

    @Test("No id key with the devbroker's bootstrap file: runs (development key, warned) and catches up")
    func devBrokerFileIsEnough() async throws {
        let harness = try PipelineHarness(partitions: 2)
        try await harness.startBroker()
        let worker = try ChildProcess(
            TestEnvironment.binary("worker"),
            [
                "--brokers-file", harness.bootstrapFile.path, "--store", "sqlite:\(harness.directory.path)/o.sqlite",
                "--http-port", "0", "--http-address", "127.0.0.1", "--until-caught-up",
            ] + PipelineHarness.groupTimings,
            directory: harness.directory, environment: Self.noKey)
        defer { worker.terminate() }
        let status = await worker.waitForExit(timeout: .seconds(60))
        #expect(status == 0, "worker: \(worker.stderr.suffix(2000))")
        #expect(worker.stderr.contains("development key"), "no warning about the development key")
    }
}
