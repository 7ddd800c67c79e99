import Foundation
import TestSupport
import Testing

/// The gateway raises its open-file limit itself: started with a soft limit of 256 it runs with the hard limit, and
/// says so when even that is too low for `--max-connections` (each connection is a descriptor).
@Suite(.timeLimit(.minutes(2)))
struct IngestOpenFileLimitTests {
    @Test("a soft limit of 256 is raised to the hard limit (4096): no warning for 1,024 connections")
    func softLimitRaised() async throws {
        let (stack, limits) = try await Self.gateway(underLimits: "256:4096")
        #expect(limits == "4096 4096")
        #expect(stack.gateway?.stderr.contains("open-file limit is too low") == false)
    }

    @Test("a hard limit of 512 is below 1,024 connections plus headroom: the gateway starts and warns with the numbers")
    func hardLimitTooLowIsLogged() async throws {
        let (stack, limits) = try await Self.gateway(underLimits: "256:512")
        #expect(limits == "512 512")
        let warning = stack.gateway?.stderr.split(separator: "\n").first { $0.contains("open-file limit is too low") }
        #expect(warning?.contains("\"open_file_limit\":512") == true, "\(warning ?? "no warning")")
        #expect(warning?.contains("\"max_connections\":1024") == true)
        #expect(warning?.contains("\"level\":\"warning\"") == true)
    }

    /// A gateway started under `prlimit --nofile=SOFT:HARD`, and its soft and hard limits once it runs.
    static func gateway(underLimits limits: String) async throws -> (GatewayStack, String) {
        let stack = try GatewayStack(partitions: 1)
        try await stack.startBroker()
        try await stack.startGateway(["--insecure-no-auth"], launcher: ["/usr/bin/prlimit", "--nofile=\(limits)"])
        let pid = try #require(stack.gateway?.pid)
        return (stack, try openFileLimits(pid))
    }

    /// The soft and hard "Max open files" of a process, from `/proc/PID/limits`.
    static func openFileLimits(_ pid: Int32) throws -> String {
        let limits = try String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)
        let line = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max open files") })
        let fields = line.dropFirst("Max open files".count).split(separator: " ")
        return "\(fields[0]) \(fields[1])"
    }
}
