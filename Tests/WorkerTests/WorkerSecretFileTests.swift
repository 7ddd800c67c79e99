import Foundation
import TestSupport
import Testing
import WorkerCore

/// Secrets given to the real worker as files: the id key's permissions (a warning and
/// `dvp_id_key_file_insecure`), the store location from `--store-file`, librdkafka properties from
/// `--kafka-property-file`; a bad file stops the worker with exit 2, naming the option and never the contents.
@Suite("Worker secret files (processes)", .serialized, .timeLimit(.minutes(4)))
struct WorkerSecretFileTests {
    static let key = "id-key-0123456789abcdef-SECRETKEY"
    static let warning = "the id key file is readable by other users"

    /// Permissions (and a group the worker is not in, `foreignGroup`) → whether the worker warns.
    static let keyModes: [(mode: Int, foreignGroup: Bool, exposed: Bool)] = [
        (0o400, false, false), (0o600, false, false), (0o640, false, false), (0o644, false, true),
        (0o604, false, true), (0o440, true, true), (0o400, true, false),
    ]

    @Test(
        "The id key file's mode: warned and dvp_id_key_file_insecure 1 when others (or a foreign group) can read it",
        arguments: keyModes.indices)
    func idKeyFilePermissions(_ index: Int) async throws {
        let (mode, foreignGroup, exposed) = Self.keyModes[index]
        let harness = try PipelineHarness(partitions: 1)
        try await harness.startBroker()
        let keyFile = harness.directory.appendingPathComponent("id-key").path
        try Data(Self.key.utf8).write(to: URL(fileURLWithPath: keyFile))
        #expect(chmod(keyFile, mode_t(mode)) == 0)
        if foreignGroup { #expect(chown(keyFile, getuid(), 54_321) == 0, "the test runs as root to chown") }
        // Through a symbolic link, as in a Kubernetes Secret volume (key → ..data/key): the target's mode counts.
        let link = harness.directory.appendingPathComponent("id-key-link").path
        #expect(symlink(keyFile, link) == 0)
        let worker = try harness.startWorker(
            store: "sqlite:\(harness.directory.path)/o.sqlite", untilCaughtUp: false, extra: ["--id-key-file", link])
        defer { worker.terminate() }
        let probe = try await WorkerProbe(worker)
        #expect(await probe.metric(.idKeyFileInsecure) == (exposed ? 1 : 0), "mode \(String(mode, radix: 8))")
        #expect(worker.stderr.contains(Self.warning) == exposed, "\(worker.stderr.suffix(1500))")
        #expect(!worker.stderr.contains(Self.key))
    }

    @Test("--store-file: a worker with the PostgreSQL URI (password included) in a file stores every valid event")
    func storeFromFile() async throws {
        let harness = try PipelineHarness(partitions: 2)
        try await harness.startBroker()
        let store = try await TestPostgres.freshDatabase("storefile")
        let (events, oracle) = try await harness.generate(patients: 10, days: 3, seed: 5)
        try await harness.publish(events)
        let file = harness.directory.appendingPathComponent("dsn")
        try Data((store + "\n").utf8).write(to: file)
        let worker = try Self.worker(harness, ["--until-caught-up"], environment: ["DVP_STORE_FILE": file.path])
        defer { worker.terminate() }
        #expect(await worker.waitForExit(timeout: .seconds(90)) == 0, "\(worker.stderr.suffix(2000))")
        let differences = await oracle.differences(from: try harness.storeDump(store))
        #expect(differences.isEmpty, "store differs from the oracle: \(differences)")
    }

    @Test("--kafka-property-file: the file's value (trailing newline removed) reaches librdkafka")
    func kafkaPropertyFromFile() async throws {
        let harness = try PipelineHarness(partitions: 1)
        try await harness.startBroker()
        let session = harness.directory.appendingPathComponent("session-timeout")
        let heartbeat = harness.directory.appendingPathComponent("heartbeat-interval")
        try Data("6000\n".utf8).write(to: session)
        try Data("1000\r\n".utf8).write(to: heartbeat)
        let worker = try Self.worker(
            harness,
            [
                "--store", "sqlite:\(harness.directory.path)/o.sqlite", "--until-caught-up",
                "--kafka-property-file", "session.timeout.ms=\(session.path)",
            ],
            environment: ["DVP_XFILE_HEARTBEAT_INTERVAL_MS": heartbeat.path])
        defer { worker.terminate() }
        #expect(await worker.waitForExit(timeout: .seconds(60)) == 0, "\(worker.stderr.suffix(2000))")
    }

    /// Bad files: exit 2 before anything starts, the option named, the contents never shown.
    static let refusals: [(name: String, arguments: [String], environment: [String: String], mentions: String)] = [
        ("missing store file", ["--store-file", "/nonexistent/dsn"], [:], "--store-file"),
        ("missing store file (env)", [], ["DVP_STORE_FILE": "/nonexistent/dsn"], "DVP_STORE_FILE"),
        ("empty store file", ["--store-file", "EMPTY"], [:], "--store-file"),
        ("missing property file", ["--kafka-property-file", "sasl.password=/nonexistent/pw"], [:], "sasl.password"),
        ("empty property file", ["--kafka-property-file", "sasl.password=EMPTY"], [:], "sasl.password"),
        ("property without a path", ["--kafka-property-file", "sasl.password"], [:], "--kafka-property-file"),
        (
            "property given twice", ["--kafka-property-file", "sasl.password=SECRET", "-X", "sasl.password=x"], [:],
            "sasl.password"
        ),
        ("property twice via env", ["-X", "sasl.password=x"], ["DVP_XFILE_SASL_PASSWORD": "SECRET"], "sasl.password"),
        ("missing id key file", ["--id-key-file", "/nonexistent/key"], [:], "--id-key-file"),
    ]

    @Test("A bad secret file: exit 2, the option named, the contents never echoed", arguments: refusals.indices)
    func badFilesAreRefused(_ index: Int) async throws {
        let refusal = Self.refusals[index]
        let directory = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let empty = directory.appendingPathComponent("empty").path
        let secret = directory.appendingPathComponent("secret").path
        try Data("\n".utf8).write(to: URL(fileURLWithPath: empty))
        try Data("postgres://u:SECRETPW@h/db".utf8).write(to: URL(fileURLWithPath: secret))
        let substitute = { (text: String) in
            text.replacingOccurrences(of: "EMPTY", with: empty).replacingOccurrences(of: "SECRET", with: secret)
        }
        let result = try await runCommand(
            TestEnvironment.binary("worker"),
            ["--brokers", "127.0.0.1:1", "--allow-development-key", "--http-port", "0"]
                + refusal.arguments.map(substitute),
            environment: ["DVP_ID_KEY": "", "DVP_ID_KEY_FILE": ""].merging(refusal.environment.mapValues(substitute)) {
                $1
            })
        #expect(result.status == 2, "\(refusal.name): \(result.stderr)")
        #expect(result.stderr.contains(refusal.mentions), "\(refusal.name): \(result.stderr)")
        #expect(!result.stderr.contains("SECRETPW") && !result.stdout.contains("SECRETPW"))
    }

    /// A worker on the harness's broker with `arguments` (and no `--store` of the harness's own).
    static func worker(_ harness: PipelineHarness, _ arguments: [String], environment: [String: String]) throws
        -> ChildProcess
    {
        try ChildProcess(
            TestEnvironment.binary("worker"),
            [
                "--brokers", harness.bootstrap, "--topic", harness.topic, "--group", "workers", "--http-port", "0",
                "--http-address", "127.0.0.1", "--batch-ms", "50",
            ] + arguments,
            directory: harness.directory,
            environment: ["DVP_ID_KEY": "test-id-key-0123456789abcdef"].merging(environment) { $1 })
    }
}
