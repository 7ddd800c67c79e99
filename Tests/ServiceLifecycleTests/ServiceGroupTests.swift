import Foundation
import Observability
import ServiceLifecycle
import Synchronization
import Testing

/// The group in process: reverse-order graceful shutdown, a service's end or error stopping the others, the deadline
/// escalating to cancellation, the handlers of a service.
@Suite("Service group", .timeLimit(.minutes(4)))
struct ServiceGroupTests {
    /// What the services did, in order.
    final class Journal: Sendable {
        private let lines = Mutex<[String]>([])
        func add(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
        func index(of line: String) -> Int? { all.firstIndex(of: line) }
    }

    /// Waits for its graceful shutdown (or ends after `endAfter`, or throws), writing what happens.
    struct Recording: Service {
        var name: String
        var journal: Journal
        var endAfter: Duration?
        var throwing = false

        func run() async throws {
            journal.add("started \(name)")
            if let endAfter {
                try await Task.sleep(for: endAfter)
                journal.add("ended \(name) by itself")
                if throwing { throw Failure(name: name) }
                return
            }
            await gracefulShutdown()  // also returns when cancelled
            guard isGracefulShutdownRequested else { return journal.add("cancelled \(name)") }
            journal.add("stopping \(name)")
            try? await Task.sleep(for: .milliseconds(20))
            journal.add("stopped \(name)")
        }
    }

    struct Failure: Error, Equatable { var name: String }

    /// Ignores its graceful shutdown; ends only when cancelled.
    struct Stubborn: Service {
        var journal: Journal
        func run() async throws {
            while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(10)) }
            journal.add("cancelled")
        }
    }

    /// A group of `services`. The default deadline is far beyond any stop of these services: in the full suite the
    /// test process's two cooperative threads were once busy for over 30 s, and a 10 s deadline escalated a shutdown
    /// whose order, not its speed, was under test. The deadline has its own test, with a deadline of its own.
    static func group(
        _ services: [any Service], signals: AsyncStream<Int32>? = nil, timeout: Duration = .seconds(180)
    ) -> ServiceGroup {
        ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services, signals: signals, gracefulShutdownTimeout: timeout, escalation: .cancel,
                logger: Logger(level: .error)))
    }

    static func expectReverseOrder(_ journal: Journal, _ names: [String]) {
        var previous = -1
        for name in names.reversed() {
            let stopping = journal.index(of: "stopping \(name)")
            let stopped = journal.index(of: "stopped \(name)")
            #expect(stopping != nil && stopped != nil, "\(name): \(journal.all)")
            #expect(
                (stopping ?? -1) > previous, "\(name) was asked to stop before the one after it ended: \(journal.all)")
            previous = stopped ?? previous
        }
    }

    @Test("A signal stops the services in reverse start order, each after the one started after it ended")
    func reverseOrderOnSignal() async throws {
        let journal = Journal()
        let (signals, signal) = AsyncStream.makeStream(of: Int32.self)
        let names = ["a", "b", "c"]
        let group = Self.group(names.map { Recording(name: $0, journal: journal) }, signals: signals)
        let run = Task { try await group.run() }
        while journal.all.count < 3 { try await Task.sleep(for: .milliseconds(5)) }
        signal.yield(SIGTERM)
        try await run.value
        Self.expectReverseOrder(journal, names)
    }

    @Test("triggerGracefulShutdown() does what the first signal does")
    func trigger() async throws {
        let journal = Journal()
        let group = Self.group(["a", "b"].map { Recording(name: $0, journal: journal) })
        let run = Task { try await group.run() }
        while journal.all.count < 2 { try await Task.sleep(for: .milliseconds(5)) }
        group.triggerGracefulShutdown()
        group.triggerGracefulShutdown()
        try await run.value
        Self.expectReverseOrder(journal, ["a", "b"])
    }

    @Test("A service that ends by itself stops the others; one that throws: the group rethrows its error")
    func serviceEnds() async throws {
        let journal = Journal()
        try await Self.group([
            Recording(name: "a", journal: journal), Recording(name: "b", journal: journal, endAfter: .milliseconds(50)),
            Recording(name: "c", journal: journal),
        ]).run()
        #expect(journal.index(of: "ended b by itself")! < journal.index(of: "stopping c")!)
        Self.expectReverseOrder(journal, ["a", "c"])

        let failing = Journal()
        await #expect(throws: Failure(name: "a")) {
            try await Self.group([
                Recording(name: "a", journal: failing, endAfter: .milliseconds(50), throwing: true),
                Recording(name: "b", journal: failing),
            ]).run()
        }
        #expect(failing.all.contains("stopped b"))
    }

    @Test("At the deadline the group cancels what still runs and throws deadlineExceeded")
    func deadline() async throws {
        let journal = Journal()
        let group = Self.group(
            [Recording(name: "a", journal: journal), Stubborn(journal: journal)], timeout: .milliseconds(300))
        let started = ContinuousClock.now
        let run = Task { try await group.run() }
        try await Task.sleep(for: .milliseconds(50))
        group.triggerGracefulShutdown()
        await #expect(throws: ServiceGroupError.deadlineExceeded) { try await run.value }
        // Not before the deadline; the upper bound is the suite's time limit (the stubborn service never ends, so
        // only the escalation ends the run). A wall-clock bound would measure the test process's load instead.
        let elapsed = ContinuousClock.now - started
        #expect(elapsed >= .milliseconds(300), "\(elapsed)")
        // The stubborn service (started last, asked first) never ended, so "a" was never asked: it was cancelled.
        #expect(journal.all.contains("cancelled") && journal.all.contains("cancelled a"), "\(journal.all)")
        #expect(!journal.all.contains("stopping a"), "\(journal.all)")
    }

    @Test("A second signal escalates at once, long before the deadline")
    func secondSignal() async throws {
        let (signals, signal) = AsyncStream.makeStream(of: Int32.self)
        // A deadline far beyond the suite's time limit: the run can only end by the second signal's escalation.
        let group = Self.group([Stubborn(journal: Journal())], signals: signals, timeout: .seconds(3_600))
        let run = Task { try await group.run() }
        signal.yield(SIGTERM)
        try await Task.sleep(for: .milliseconds(50))
        signal.yield(SIGINT)
        await #expect(throws: ServiceGroupError.deadlineExceeded) { try await run.value }
    }

    /// Waits for its request, then registers a handler: the handler runs at once, before the operation.
    struct Late: Service {
        var journal: Journal
        func run() async throws {
            await gracefulShutdown()
            journal.add(isGracefulShutdownRequested ? "requested" : "not requested")
            await withGracefulShutdownHandler {
                journal.add("operation")
            } onGracefulShutdown: {
                journal.add("handler")
            }
        }
    }

    @Test("A handler registered after the request runs at once; outside a group the operation just runs")
    func handlers() async throws {
        let outside = Journal()
        let value = await withGracefulShutdownHandler {
            7
        } onGracefulShutdown: {
            outside.add("handler")
        }
        #expect(value == 7 && outside.all.isEmpty && !isGracefulShutdownRequested)

        let journal = Journal()
        let group = Self.group([Late(journal: journal)])
        let run = Task { try await group.run() }
        try await Task.sleep(for: .milliseconds(20))
        group.triggerGracefulShutdown()
        try await run.value
        #expect(journal.all == ["requested", "handler", "operation"])
    }
}
