import Foundation
import TestSupport
import Testing

/// The lifecycle in a real process (`dvp-test-tools lifecycle`): SIGTERM/SIGINT, reverse-order shutdown, the stop
/// deadline and a second signal ending the process with 3, a failing service with 1.
@Suite("Service process", .serialized, .timeLimit(.minutes(2)))
struct ServiceProcessTests {
    static func start(_ arguments: [String]) async throws -> ChildProcess {
        let process = try ChildProcess(
            TestEnvironment.binary("dvp-test-tools"), ["lifecycle"] + arguments, name: "lifecycle")
        let ready = await eventually(timeout: .seconds(30), interval: .milliseconds(20)) {
            process.stdout.contains("started 1") && process.stdout.contains("ready")
        }
        try #require(ready, "the probe never started: \(process.stderr)")
        // Every service has started once its line is there.
        _ = await eventually(timeout: .seconds(5), interval: .milliseconds(20)) {
            process.stdout.split(separator: "\n").filter { $0.hasPrefix("started") }.count
                == Int(arguments.drop { $0 != "--services" }.dropFirst().first ?? "3")
        }
        return process
    }

    static func lines(_ process: ChildProcess) -> [String] { process.stdout.split(separator: "\n").map(String.init) }

    @Test(
        "SIGTERM or SIGINT: the services stop in reverse order, each after the next one ended; exit 0",
        arguments: [
            SIGTERM, SIGINT,
        ])
    func gracefulStop(_ sig: Int32) async throws {
        let process = try await Self.start(["--services", "3"])
        defer { process.terminate() }
        process.signal(sig)
        let status = await process.waitForExit(timeout: .seconds(20))
        #expect(status == 0, "exit \(ChildProcess.describe(status)): \(process.stderr) \(process.stdout)")
        let order = Self.lines(process).filter { $0.hasPrefix("stopping") || $0.hasPrefix("stopped") }
        #expect(order == ["stopping 3", "stopped 3", "stopping 2", "stopped 2", "stopping 1", "stopped 1"])
        #expect(Self.lines(process).last == "ended")
        let name = sig == SIGTERM ? "SIGTERM" : "SIGINT"
        #expect(process.stderr.contains("stopping the probe's services") && process.stderr.contains(name))
    }

    @Test("A signal the moment the signal stream exists is not lost: it stops the services once they run")
    func signalAtOnce() async throws {
        for _ in 0..<5 {
            let process = try ChildProcess(
                TestEnvironment.binary("dvp-test-tools"), ["lifecycle", "--services", "2", "--signal-self"],
                name: "lifecycle")
            defer { process.terminate() }
            let status = await process.waitForExit(timeout: .seconds(20))
            #expect(status == 0, "exit \(ChildProcess.describe(status)): \(process.stdout) \(process.stderr)")
            #expect(Self.lines(process).contains("stopped 1"))
        }
    }

    @Test("A service that never ends: at the stop deadline the process exits 3, the earlier services never asked")
    func deadline() async throws {
        let process = try await Self.start(["--services", "3", "--stuck", "--drain-timeout", "1"])
        defer { process.terminate() }
        let signalled = ContinuousClock.now
        process.signal(SIGTERM)
        let status = await process.waitForExit(timeout: .seconds(20))
        let elapsed = ContinuousClock.now - signalled
        #expect(status == 3, "exit \(ChildProcess.describe(status)): \(process.stderr)")
        #expect(elapsed >= .seconds(1), "\(elapsed): before the deadline")  // the wait above bounds it
        #expect(process.stderr.contains("drain deadline exceeded"))
        #expect(Self.lines(process).contains("stopping 3"))
        #expect(!Self.lines(process).contains("stopping 2"), "asked before the service after it ended")
    }

    @Test("A second signal exits 3 at once, long before the deadline")
    func secondSignal() async throws {
        let process = try await Self.start(["--services", "2", "--stuck", "--drain-timeout", "60"])
        defer { process.terminate() }
        process.signal(SIGTERM)
        _ = await eventually(timeout: .seconds(10), interval: .milliseconds(20)) {
            Self.lines(process).contains("stopping 2")
        }
        process.signal(SIGTERM)
        let status = await process.waitForExit(timeout: .seconds(20))
        #expect(status == 3, "exit \(ChildProcess.describe(status)): \(process.stderr)")
        // Exit 3 within the wait's 20 s, a third of the 60 s deadline, and for the second signal.
        #expect(process.stderr.contains("second signal: exiting at once"))
    }

    @Test("A service that throws stops the others in reverse order; the process exits 1")
    func failingService() async throws {
        let process = try await Self.start(["--services", "3", "--fail-after", "300"])
        defer { process.terminate() }
        let status = await process.waitForExit(timeout: .seconds(20))
        #expect(status == 1, "exit \(ChildProcess.describe(status)): \(process.stderr)")
        let order = Self.lines(process).filter { $0.hasPrefix("stop") || $0.hasPrefix("failing") }
        #expect(order == ["failing 1", "stopping 3", "stopped 3", "stopping 2", "stopped 2"])
    }
}
