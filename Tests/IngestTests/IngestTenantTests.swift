import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif
import Testing

/// Tenants are kept apart and visible: records accepted and refused are counted per tenant, a refusal is logged with
/// its tenant (never a patient id), and a key file that would mix tenants is refused on reload — the old keys stay,
/// the refusal is logged and counted.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct IngestTenantTests {
    @Test("Records accepted and refused are counted per tenant; a refusal's log line names the tenant")
    func countedAndLoggedPerTenant() async throws {
        let stack = try GatewayStack()
        try await stack.startBroker()
        let keys = try await TenantKeys(in: stack.directory)
        try await stack.startGateway(["--api-keys", keys.file.path])
        let events = try await TestEvents.lines(10, in: stack.directory)
        let body = try stack.file("ten.json", TestEvents.array(events))
        let accepted = try await stack.curl(
            CurlResponse.post(stack.url, file: body, headers: ["Authorization: Bearer \(keys.good)"]))
        #expect(accepted.status == 202, "\(accepted.text)")
        // The same patients (p-…) are outside the other tenant's scope (q-).
        let outside = try await stack.curl(
            CurlResponse.post(stack.url, file: body, headers: ["Authorization: Bearer \(keys.slow)"]))
        #expect(outside.status == 403, "\(outside.text)")
        var invalid = try #require(try JSONSerialization.jsonObject(with: Data(events[0].utf8)) as? [String: Any])
        invalid["metric"] = "no_such_metric"
        let bad = try stack.file(
            "bad.json", "[" + String(decoding: try JSONSerialization.data(withJSONObject: invalid), as: UTF8.self) + "]")
        let refused = try await stack.curl(
            CurlResponse.post(stack.url, file: bad, headers: ["Authorization: Bearer \(keys.good)"]))
        #expect(refused.status == 422, "\(refused.text)")

        let metrics = try await stack.curl(["\(stack.adminURL)/metrics"]).text
        #expect(metrics.contains(#"dvp_ingest_records_accepted_total{tenant="good"} 10"#), "\(metrics)")
        #expect(!metrics.contains(#"dvp_ingest_records_accepted_total{tenant="slow"}"#))
        #expect(metrics.contains(#"dvp_ingest_records_rejected_total{reason="out-of-scope",tenant="slow"} 10"#))
        #expect(metrics.contains(#"dvp_ingest_records_rejected_total{reason="invalid",tenant="good"} 1"#))

        let log = try #require(stack.gateway?.stderr)
        let lines = log.split(separator: "\n").filter { $0.contains("\"request refused\"") }
        #expect(lines.contains { $0.contains(#""tenant":"slow""#) && $0.contains(#""status":403"#) }, "\(lines)")
        #expect(lines.contains { $0.contains(#""tenant":"good""#) && $0.contains(#""status":422"#) }, "\(lines)")
        #expect(!log.contains("p-0000"), "no patient id in the log")
        #expect(!log.contains(keys.good) && !log.contains(keys.slow), "no key in the log")
    }

    @Test("A changed key file that mixes two tenants' patients is refused: old keys stay, logged and counted")
    func refusedReloadKeepsTheKeys() async throws {
        let stack = try GatewayStack()
        try await stack.startBroker()
        let keys = try await TenantKeys(in: stack.directory)
        try await stack.startGateway(["--api-keys", keys.file.path])
        let body = try stack.file("one.json", TestEvents.array(try await TestEvents.lines(1, in: stack.directory)))
        func post(_ key: String) async throws -> Int {
            try await stack.curl(CurlResponse.post(stack.url, file: body, headers: ["Authorization: Bearer \(key)"]))
                .status
        }
        #expect(try await post(keys.good) == 202)
        // A third key whose tenant would overlap `good`'s patients (p-0 starts within p-): the file is refused.
        let intruder = "intruder-\(UUID().uuidString)"
        let mixed = try await TenantKeys.lines([
            (keys.good, "tenant=good  patients=p-"), (keys.slow, "tenant=slow  patients=q-"),
            (intruder, "tenant=other  patients=p-0"),
        ])
        try Self.replace(keys.file, with: mixed)
        #expect(
            await eventually(timeout: .seconds(10)) {
                _ = try? await post(keys.good)
                return await stack.metricsEventually(
                    contain: #"dvp_ingest_credential_reloads_total{result="refused"} 1"#, timeout: .milliseconds(200))
            })
        #expect(try await post(keys.good) == 202, "the previous keys stay in use")
        #expect(try await post(intruder) == 401, "the refused file's new key is not in use")
        let log = try #require(stack.gateway?.stderr)
        let refusal = log.split(separator: "\n").first { $0.contains("a changed credential file is refused") }
        #expect(refusal?.contains("line 3") == true, "\(refusal ?? "no line")")
        #expect(refusal.map { !$0.contains(intruder) && !$0.contains(keys.good) } == true)

        // Fixed: the intruder gets its own prefix, the file loads, the new key works.
        try Self.replace(
            keys.file,
            with: try await TenantKeys.lines([
                (keys.good, "tenant=good  patients=p-"), (intruder, "tenant=other  patients=r-"),
            ]))
        #expect(
            await eventually(timeout: .seconds(10)) {
                _ = try? await post(keys.good)
                return await stack.metricsEventually(
                    contain: #"dvp_ingest_credential_reloads_total{result="loaded"} 1"#, timeout: .milliseconds(200))
            })
        #expect(try await post(keys.slow) == 401, "a key removed from the file no longer works")
    }

    /// Replaces `file` atomically (a new inode, as `mv` does), so the gateway sees the change.
    static func replace(_ file: URL, with text: String) throws {
        let next = file.appendingPathExtension("next")
        try Data(text.utf8).write(to: next)
        guard rename(next.path, file.path) == 0 else { throw TestSetupError("rename to \(file.path) failed") }
    }
}
