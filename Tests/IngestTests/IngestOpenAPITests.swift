import Foundation
import IngestAuth
import TestSupport
import Testing

/// docs/ingest-openapi.yaml against the real answers: Python (`http.client`, scripts/check_ingest_openapi.py) sends
/// every documented case to a running gateway and checks each answer's status, content type, required headers and
/// body with `jsonschema` against the file; every status the file documents must have been answered by some case.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct IngestOpenAPITests {
    static let spec = TestEnvironment.root.appendingPathComponent("docs/ingest-openapi.yaml").path

    /// Runs the checker; returns the documented `METHOD PATH STATUS` each case was checked against.
    static func check(
        _ cases: [String], url: String, adminURL: String? = nil, events: URL, token: String? = nil
    ) async throws -> [String] {
        let python = try await TestPython.executable().path
        let result = try await ChildProcess.run(
            python,
            [TestEnvironment.script("check_ingest_openapi.py"), "--spec", spec, "--url", url, "--events", events.path]
                + (adminURL.map { ["--admin-url", $0] } ?? []) + (token.map { ["--token", $0] } ?? []) + cases,
            timeout: .seconds(180))
        let lines = result.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        for line in lines {
            let problems = line["problems"] as? [String] ?? ["no verdict"]
            #expect(problems.isEmpty, "\(line["case"] ?? "?"): \(problems)")
        }
        #expect(lines.count == cases.count, "one verdict per case: \(result.stderr.suffix(1500))")
        #expect(
            result.status == 0 || lines.contains { !($0["problems"] as? [String] ?? []).isEmpty }, "\(result.stderr)")
        return lines.compactMap { $0["documented"] as? String }
    }

    @Test("Every documented answer, from the real gateway, matches docs/ingest-openapi.yaml")
    func answersMatchTheDocument() async throws {
        let stack = try GatewayStack()
        try await stack.startBroker()
        try await stack.startGateway([
            "--insecure-no-auth", "--max-records", "5", "--max-body-bytes", "4096", "--max-in-flight-bytes", "1048576",
            "--max-concurrent-requests", "2", "--request-timeout", "3",
        ])
        let events = try stack.file(
            "events.jsonl", TestEvents.ndjson(try await TestEvents.lines(20, in: stack.directory)))
        var covered = try await Self.check(
            [
                "accepted-array", "accepted-ndjson", "accepted-gzip", "replayed", "key-reused", "malformed-json",
                "not-an-array", "bad-key", "too-many-records", "too-large", "too-large-gzip", "unsupported-type",
                "unsupported-encoding", "invalid-records", "method", "probe-method:/healthz", "probe-method:/readyz",
                "probe-method:/metrics", "healthz", "readyz", "metrics", "throttled", "repeated-header",
            ],
            url: stack.url, adminURL: stack.adminURL, events: events)

        try await stack.control("rtt -1 2000")
        covered += try await Self.check(["conflict"], url: stack.url, adminURL: stack.adminURL, events: events)
        try await stack.control("rtt -1 0")

        for broker in 1...3 { try await stack.control("down \(broker)") }
        #expect(
            await eventually(timeout: .seconds(15)) {
                (try? await stack.curl(["\(stack.adminURL)/readyz"]).status) == 503
            })
        covered += try await Self.check(
            ["unavailable", "not-ready"], url: stack.url, adminURL: stack.adminURL, events: events)
        for broker in 1...3 { try await stack.control("up \(broker)") }

        // 401 and 403 need a verifier: the same gateway in-process with the test-only one.
        let verifier = FixedTokenVerifier(scopes: ["test-nobody": IngestScope(tenant: "z", patientPrefix: "zz-")])
        try await InProcessGateway.run(verifier: verifier) { gateway in
            covered += try await Self.check(
                ["unauthorized", "forbidden"], url: gateway.url, events: events, token: "test-nobody")
        }

        let python = try await TestPython.executable().path
        let listed = try await runCommand(
            python, [TestEnvironment.script("check_ingest_openapi.py"), "--spec", Self.spec, "--list-documented"])
        let documented = Set(listed.stdout.split(separator: "\n").map(String.init))
        #expect(documented.count >= 18)
        #expect(
            documented.subtracting(covered).isEmpty,
            "documented but never answered: \(documented.subtracting(covered).sorted())")
        #expect(Set(covered).subtracting(documented).isEmpty)
    }
}
