import CommandLineOptions
import Foundation
import Observability
import ServiceLifecycle

/// `dvp-test-tools lifecycle`: numbered services in one `ServiceGroup` with SIGTERM/SIGINT, so the lifecycle's tests
/// can stop a real process and read, on stdout, the order in which its services were asked to stop and ended.
enum LifecycleProbe {
    static let usage = "lifecycle [--services N] [--drain-timeout SECONDS] [--stuck] [--fail-after MS]"
    static let parser = CommandLineParser([
        .value("--services", "N", help: "services to start, named 1 to N (default 3)")
            .typed(.integer(1...9), default: "3"),
        .value("--drain-timeout", "SECONDS", help: "the stop deadline (default 5)")
            .typed(.number(0...600, exclusiveMinimum: true), default: "5"),
        .flag("--stuck", help: "the last service ignores its graceful shutdown and cancellation"),
        .value("--fail-after", "MS", help: "service 1 throws after MS milliseconds").typed(.integer(0...600_000)),
        .flag("--signal-self", help: "send itself SIGTERM as soon as the signal stream exists"),
    ])

    static func run(_ args: ParsedCommandLine) async throws -> Int32 {
        let signals = await SignalStream.make()
        if args.isSet("--signal-self") { kill(getpid(), SIGTERM) }
        let count = try args.declaredInteger("--services") ?? 3
        let seconds = try args.number("--drain-timeout", in: 0.001...600) ?? 5
        let failAfter = try args.declaredInteger("--fail-after")
        let services = (1...count).map { number in
            ProbeService(
                name: "\(number)", isStuck: args.isSet("--stuck") && number == count,
                failAfter: number == 1 ? failAfter : nil)
        }
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services, signals: signals, gracefulShutdownTimeout: .milliseconds(Int64(seconds * 1000)),
                logger: Logger(level: .info), stopMessage: "stopping the probe's services"))
        // The signal masks it started with (blocked, ignored, caught), for the message of a test that lost a signal.
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        ProbeService.line(status.split(separator: "\n").filter { $0.hasPrefix("Sig") }.joined(separator: " "))
        ProbeService.line("ready")
        do {
            try await group.run()
            ProbeService.line("ended")
            return ServiceExitStatus.success
        } catch {
            ProbeService.line("ended with \(error)")
            return ServiceExitStatus.failure
        }
    }
}

/// One service of the probe: says when it starts, is asked to stop and has stopped.
struct ProbeService: Service {
    struct Failure: Error {}

    var name: String
    var isStuck: Bool
    var failAfter: Int?

    func run() async throws {
        Self.line("started \(name)")
        if isStuck {
            await withGracefulShutdownHandler {
                // Never resumed: neither the graceful shutdown nor cancellation ends it (a blocked C call).
                await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in }
            } onGracefulShutdown: {
                Self.line("stopping \(name)")
            }
        } else if let failAfter {
            try await Task.sleep(for: .milliseconds(failAfter))
            Self.line("failing \(name)")
            throw Failure()
        } else {
            await gracefulShutdown()
            Self.line("stopping \(name)")
            try? await Task.sleep(for: .milliseconds(100))
            Self.line("stopped \(name)")
        }
    }

    /// One line on stdout, written at once (the test reads the file while the process runs).
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }
}
