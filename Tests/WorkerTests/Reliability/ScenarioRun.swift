import Foundation
import Kafka
import TestSupport
import Testing

/// One reliability scenario: real processes, the oracle of everything sent, one fault, a drain, the common checks
/// (reference §4.0), and a row in the results table.
final class ScenarioRun: @unchecked Sendable {
    let name: String
    let harness: PipelineHarness
    let store: ScenarioStore
    let group = "workers"
    private let started = ContinuousClock.now
    private let lock = NSLock()
    private var workers: [ScenarioWorker] = []
    private var oracle = Oracle()
    private var failures: [String] = []
    private var notes: [String] = []
    private var recorded = false
    private var scraper: Task<Void, Never>?

    /// Workers that ended by a signal the scenario did not send (SIGABRT, SIGSEGV, …): each fails the scenario.
    private(set) var aborts = 0
    private var abortedWorkers: Set<String> = []

    private init(name: String, partitions: Int, ownPostgres: Bool) async throws {
        self.name = name
        harness = try PipelineHarness(partitions: partitions)
        try await harness.startBroker()
        store = try await ScenarioStore(in: harness.directory, ownCluster: ownPostgres)
    }

    /// Runs `body` as scenario `name`; a thrown error is recorded as a failed row and rethrown.
    static func perform(
        _ name: String, partitions: Int = 6, ownPostgres: Bool = false, _ body: (ScenarioRun) async throws -> Void
    ) async throws {
        let run = try await ScenarioRun(name: name, partitions: partitions, ownPostgres: ownPostgres)
        defer { run.scraper?.cancel() }
        run.startScraper()
        do {
            try await body(run)
        } catch {
            run.fail("error: \(error)")
            run.record(ScenarioResult(
                scenario: name, eventsSent: 0, lost: 0, staleOverwrites: 0, aborts: run.aborts, duplicates: 0,
                deadLettered: 0,
                passed: false, seconds: (ContinuousClock.now - run.started).inSeconds, notes: "\(error)"))
            throw error
        }
        if !run.recorded { Issue.record("scenario \(name) never verified its result") }
    }

    // MARK: - Input and its oracle

    /// Generates a stream to a file (kept as the oracle) and returns the file.
    func generate(patients: Int, days: Int, seed: Int, extra: [String] = []) async throws -> URL {
        let (events, generated) = try await harness.generate(patients: patients, days: days, seed: seed, extra: extra)
        addOracle(generated)
        return events
    }

    /// Publishes a generated file as-is; `extra` e.g. `-X compression.codec=none`.
    func publish(_ events: URL, extra: [String] = []) async throws { try await harness.publish(events, extra: extra) }

    /// Starts `producer generate` straight into Kafka at `rate` events/s; ``finish(_:)`` adds its oracle.
    func startGenerator(patients: Int, days: Int, seed: Int, rate: Int, extra: [String] = []) throws -> Generator {
        let oracleFile = harness.directory.appendingPathComponent("oracle-live-\(seed).tsv")
        let process = try ChildProcess(
            TestEnvironment.binary("producer"),
            ["generate", "--brokers", harness.bootstrap, "--topic", harness.topic, "--patients", "\(patients)",
             "--days", "\(days)", "--seed", "\(seed)", "--start-day", "2026-09-01", "--rate", "\(rate)",
             "--oracle-out", oracleFile.path] + extra,
            directory: harness.directory, name: "generator")
        return Generator(process: process, oracleFile: oracleFile)
    }

    struct Generator {
        let process: ChildProcess
        let oracleFile: URL
    }

    /// Waits for a live generator and adds its oracle.
    func finish(_ generator: Generator, timeout: Duration = .seconds(180)) async throws {
        let status = await generator.process.waitForExit(timeout: timeout)
        guard status == 0 else {
            throw TestSetupError("generator exited \(status.map(String.init) ?? "late"): \(generator.process.stderr.suffix(800))")
        }
        addOracle(try Oracle(contentsOf: generator.oracleFile))
    }

    func addOracle(_ other: Oracle) {
        lock.withLock {
            for (key, version) in other.versions { oracle.versions[key] = max(oracle.versions[key] ?? .min, version) }
            oracle.invalid += other.invalid
        }
    }

    // MARK: - Workers

    /// Starts a long-running worker (or `--until-caught-up`) in the scenario's group on its store (or on
    /// `storeURL`, the same store with other connection parameters).
    @discardableResult
    func startWorker(_ name: String = "worker", extra: [String] = [], untilCaughtUp: Bool = false,
                     group: String? = nil, storeURL: String? = nil, environment: [String: String] = [:],
                     binary: String = "worker") async throws
        -> ScenarioWorker
    {
        let process = try harness.startWorker(
            store: storeURL ?? store.url, group: group ?? self.group, untilCaughtUp: untilCaughtUp, extra: extra,
            name: name, environment: environment, binary: binary)
        let worker = try await ScenarioWorker(process)
        lock.withLock { workers.append(worker) }
        return worker
    }

    /// kill -9 (after a last scrape of its counters).
    func kill9(_ worker: ScenarioWorker) async {
        await worker.refresh()
        worker.markKilledOnPurpose()
        worker.process.signal(SIGKILL)
        _ = await worker.process.waitForExit(timeout: .seconds(10))
    }

    /// SIGTERM and wait: exit 0 within `limit` is expected; anything else (an abort, another exit code, a hang)
    /// fails the scenario.
    @discardableResult
    func terminate(_ worker: ScenarioWorker, within limit: Duration = .seconds(40)) async -> Int32? {
        await worker.refresh()
        worker.process.signal(SIGTERM)
        let status = await worker.process.waitForExit(timeout: limit)
        countIfAborted(worker)
        check(status == 0, "\(worker.name) ended with \(ChildProcess.describe(status)) after SIGTERM: "
            + worker.process.stderr.suffix(1200))
        return status
    }

    /// Counts a worker that died by a signal the scenario did not send (once per worker).
    private func countIfAborted(_ worker: ScenarioWorker) {
        guard let status = worker.unexpectedSignal else { return }
        let first = lock.withLock { abortedWorkers.insert(worker.name).inserted }
        guard first else { return }
        lock.withLock { aborts += 1 }
        check(false, "\(worker.name) died by \(ChildProcess.describe(status)): " + worker.process.stderr.suffix(1200))
    }

    var runningWorkers: [ScenarioWorker] { lock.withLock { workers.filter { $0.process.isRunning } } }

    private func startScraper() {
        scraper = Task { [weak self] in
            while !Task.isCancelled {
                for worker in self?.runningWorkers ?? [] { await worker.refresh() }
                try? await Task.sleep(for: .milliseconds(400))
            }
        }
    }

    // MARK: - Checks and notes

    /// An expectation of this scenario: recorded as a test issue and as a failure in the results row.
    func check(_ condition: Bool, _ message: @autoclosure () -> String,
               sourceLocation: SourceLocation = #_sourceLocation) {
        guard !condition else { return }
        let text = message()
        fail(text)
        Issue.record(Comment(rawValue: "[\(name)] \(text)"), sourceLocation: sourceLocation)
    }

    func note(_ text: String) { lock.withLock { notes.append(text) } }

    private func fail(_ text: String) { lock.withLock { failures.append(String(text.prefix(300))) } }

    fileprivate func record(_ result: ScenarioResult) {
        lock.withLock { recorded = true }
        ReliabilityReport.record(result)
    }

    // MARK: - Drain and the common oracle

    /// Waits until the group's committed offsets reach the end of every partition, stops the workers still
    /// running (SIGTERM), then checks the common oracle and records the row.
    /// - Parameter expectedLost: identities the scenario loses on purpose (retention), checked exactly.
    func drainAndVerify(drainTimeout: Duration = .seconds(90), expectedLost: Int = 0) async throws {
        let records = try await topicRecords()
        let ends = Self.endOffsets(of: records, partitions: harness.partitions)
        let reached = try await waitForCommitted(ends, timeout: drainTimeout)
        for worker in runningWorkers { await terminate(worker) }
        scraper?.cancel()
        for worker in lock.withLock({ workers }) { countIfAborted(worker) }

        let dump = try await harness.storeDump(store.url)
        let expected = lock.withLock { oracle }
        var lost: [(key: String, version: Int64)] = []
        var above = 0
        for (key, version) in expected.versions {
            guard let stored = dump[key], stored >= version else { lost.append((key, version)); continue }
            if stored > version { above += 1 }
        }
        if !lost.isEmpty {
            // Tell a loss before the worker (the event never reached the topic) from one by the worker.
            let inTopic = Self.identityVersions(in: records)
            let missing = lost.filter { !inTopic.contains("\($0.key)@\($0.version)") }.count
            note("\(missing) of \(lost.count) lost identities have no record of their highest version in the topic")
        }
        let never = dump.keys.filter { expected.versions[$0] == nil }.count
        let retractions = records.filter { $0.value.starts(with: Array(#"{"schema":1,"kind":"retraction""#.utf8)) }
        if !retractions.isEmpty { note("\(retractions.count) retractions in the stream") }
        let decreases = try await store.versionDecreases()
        let dlq = try await deadLetterSources()
        let sent = ends.values.reduce(0, +)
        let consumed = lock.withLock { workers }.map(\.consumed).reduce(0, +)

        check(reached.isEmpty, "committed offsets short of the end: \(reached.prefix(6).joined(separator: ", "))")
        check(lost.count == expectedLost, "\(lost.count) identities lost or below their highest version (expected \(expectedLost)): "
            + expected.differences(from: dump, limit: 3).joined(separator: "; "))
        check(above == 0 && never == 0, "\(above) stored above the highest sent version, \(never) never sent valid")
        check(decreases == 0, "the audit trigger recorded \(decreases) version decreases")
        check(dlq.sources == expected.invalid.count,
              "dead-letter topic holds \(dlq.sources) distinct source records, \(expected.invalid.count) invalid sent")
        check(dlq.withoutReason == 0, "\(dlq.withoutReason) dead-letter records without a reason header")
        if dlq.records > dlq.sources { note("\(dlq.records - dlq.sources) duplicate dead-letter records") }

        let (failed, text) = lock.withLock { (failures, notes) }
        record(ScenarioResult(
            scenario: name, eventsSent: Int(sent), lost: lost.count, staleOverwrites: decreases + above, aborts: aborts,
            duplicates: Int(max(0, consumed - sent)), deadLettered: dlq.sources, passed: failed.isEmpty,
            seconds: (ContinuousClock.now - started).inSeconds, notes: (text + failed).joined(separator: "; ")))
    }

    /// The end offset (high watermark) of every partition of the main topic.
    func endOffsets() async throws -> [Int32: Int64] {
        Self.endOffsets(of: try await topicRecords(), partitions: harness.partitions)
    }

    /// Every record of the main topic.
    private func topicRecords() async throws -> [KafkaMessage] {
        try await KafkaConsumer.readAll(topic: harness.topic, bootstrapServers: harness.bootstrap, timeout: .seconds(90))
    }

    private static func endOffsets(of records: [KafkaMessage], partitions: Int) -> [Int32: Int64] {
        var ends = Dictionary(uniqueKeysWithValues: (0..<Int32(partitions)).map { ($0, Int64(0)) })
        for m in records { ends[m.partition] = max(ends[m.partition] ?? 0, m.offset + 1) }
        return ends
    }

    /// `patient/metric/day@version` of every record that parses as JSON with those fields.
    private static func identityVersions(in records: [KafkaMessage]) -> Set<String> {
        var out = Set<String>()
        for record in records {
            guard let object = try? JSONSerialization.jsonObject(with: Data(record.value)) as? [String: Any],
                let patient = object["patient"] as? String, let metric = object["metric"] as? String,
                let day = object["day"] as? String, let version = (object["version"] as? NSNumber)?.int64Value
            else { continue }
            out.insert("\(patient)/\(metric)/\(day)@\(version)")
        }
        return out
    }

    /// Polls the group's committed offsets until they equal `ends`; returns the partitions still short.
    func waitForCommitted(_ ends: [Int32: Int64], timeout: Duration, group: String? = nil) async throws -> [String] {
        var configuration = KafkaConsumerConfiguration(bootstrapServers: harness.bootstrap, groupId: group ?? self.group)
        configuration.statisticsIntervalMs = 0
        let consumer = try KafkaConsumer(configuration: configuration)
        let partitions = ends.keys.sorted().map { KafkaTopicPartition(topic: harness.topic, partition: $0) }
        var short: [String] = []
        let deadline = ContinuousClock.now + timeout
        repeat {
            let committed = (try? await consumer.committed(partitions, timeout: .seconds(5))) ?? []
            short = partitions.compactMap { tp in
                let offset = committed.first { $0.partition == tp.partition }?.offset ?? -1
                return offset == ends[tp.partition] ? nil : "p\(tp.partition) \(offset)/\(ends[tp.partition] ?? 0)"
            }
            if short.isEmpty { break }
            try await Task.sleep(for: .milliseconds(500))
        } while ContinuousClock.now < deadline
        await consumer.close(timeout: .seconds(10))
        return short
    }

    /// Distinct dead-lettered source records (original partition/offset), all records, and those without a reason.
    private func deadLetterSources() async throws -> (sources: Int, records: Int, withoutReason: Int) {
        let records = try await harness.deadLetters()
        var sources = Set<String>()
        var withoutReason = 0
        for record in records {
            let headers = Dictionary(record.headers.map { ($0.key, String(decoding: $0.value ?? [], as: UTF8.self)) },
                                     uniquingKeysWith: { a, _ in a })
            sources.insert("\(headers["__connect.errors.partition"] ?? "?")/\(headers["__connect.errors.offset"] ?? "?")")
            if (headers["__connect.errors.exception.message"] ?? "").isEmpty { withoutReason += 1 }
        }
        return (sources.count, records.count, withoutReason)
    }
}

extension Oracle {
    /// An empty oracle, to merge generated ones into.
    init() {}
}
