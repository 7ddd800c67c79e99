import Foundation
import IngestAuth
import TestSupport
import Testing

/// Bearer tokens and scopes through the real gateway (in-process, mock cluster), with curl as the client: 401 with
/// `WWW-Authenticate` for a missing, unknown or expired token (nothing read past the head, nothing published), 403
/// for the whole request when any record's patient is outside the token's scope, 202 inside it.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct IngestAuthenticationTests {
    static let verifier = FixedTokenVerifier(
        scopes: [
            "test-clinic-a": IngestScope(tenant: "clinic-a", patientPrefix: "p-0000"),
            "test-clinic-a-wide": IngestScope(tenant: "clinic-a", patientPrefix: "p-"),
            "test-everyone": IngestScope(tenant: "ops", patientPrefix: ""),
            "test-nobody": IngestScope(tenant: "clinic-z", patientPrefix: "zz-"),
        ],
        expired: ["test-expired"])

    @Test("401 with WWW-Authenticate for no, unknown, malformed or expired tokens; the token is never echoed")
    func unauthorized() async throws {
        try await InProcessGateway.run(verifier: Self.verifier) { gateway in
            let events = try await TestEvents.lines(3, in: gateway.directory)
            let body = try gateway.file("body.json", TestEvents.array(events))
            let cases: [(header: String?, challenge: String)] = [
                (nil, #"Bearer realm="dvp-ingest""#),
                ("Authorization: Basic dXNlcjpwYXNz", #"Bearer realm="dvp-ingest""#),
                ("Authorization: Bearer test-unknown-secret-42", #"Bearer realm="dvp-ingest", error="invalid_token""#),
                ("Authorization: Bearer not-a-test-token", #"Bearer realm="dvp-ingest", error="invalid_token""#),
                (
                    "Authorization: Bearer test-expired",
                    #"Bearer realm="dvp-ingest", error="invalid_token", error_description="the token expired""#
                ),
            ]
            for (header, challenge) in cases {
                let answer = try await gateway.curl(
                    CurlResponse.post(gateway.url, file: body, headers: header.map { [$0] } ?? []))
                #expect(answer.status == 401, "\(header ?? "no header"): \(answer.text)")
                #expect(answer.headers["www-authenticate"] == challenge)
                #expect(answer.contentType == "application/problem+json")
                #expect(answer.json?["type"] as? String == "urn:dvp:ingest:unauthorized")
                #expect(!answer.text.contains("secret-42") && !answer.text.contains("dXNlcjpwYXNz"))
            }
            #expect(try await gateway.records().isEmpty)
        }
    }

    @Test("One record outside the token's scope refuses the request with 403; nothing of it is published")
    func scopeViolation() async throws {
        try await InProcessGateway.run(verifier: Self.verifier) { gateway in
            let events = try await TestEvents.lines(6, in: gateway.directory)
            // The generator's patients are p-000001…; clinic-a may send p-0000* only: rename one to p-1…
            var mixed = events
            for index in [1, 4] {
                mixed[index] = mixed[index].replacingOccurrences(of: #""patient":"p-0000"#, with: #""patient":"p-1000"#)
                #expect(mixed[index] != events[index])
            }
            let body = try gateway.file("mixed.json", TestEvents.array(mixed))
            let refused = try await gateway.curl(
                CurlResponse.post(gateway.url, file: body, headers: ["Authorization: Bearer test-clinic-a"]))
            #expect(refused.status == 403, "\(refused.text)")
            #expect(refused.json?["type"] as? String == "urn:dvp:ingest:patient-out-of-scope")
            #expect(refused.errors.map { $0["index"] as? Int } == [1, 4])
            #expect(refused.errors.first?["pointer"] as? String == "/patient")
            #expect(refused.errors.map { $0["line"] as? Int } == [2, 5], "one event a line: record N on line N + 1")
            #expect(!refused.text.contains("p-1000"), "the patient id is not echoed")
            #expect(try await gateway.records().isEmpty, "nothing of a refused request is published")

            let nobody = try await gateway.curl(
                CurlResponse.post(gateway.url, file: body, headers: ["Authorization: Bearer test-nobody"]))
            #expect(nobody.status == 403)
            #expect(nobody.errors.count == 6)

            let inside = try gateway.file("inside.json", TestEvents.array(events))
            let accepted = try await gateway.curl(
                CurlResponse.post(gateway.url, file: inside, headers: ["Authorization: Bearer test-clinic-a"]))
            #expect(accepted.status == 202, "\(accepted.text)")
            #expect(accepted.receipts.count == 6)
            let everyone = try await gateway.curl(
                CurlResponse.post(gateway.url, file: body, headers: ["Authorization: Bearer test-everyone"]))
            #expect(everyone.status == 202, "an empty prefix allows every patient: \(everyone.text)")
            #expect(try await gateway.records().count == 12)
        }
    }

    @Test("Idempotency keys are per tenant: the same key from two tenants is two requests")
    func idempotencyKeysPerTenant() async throws {
        try await InProcessGateway.run(verifier: Self.verifier) { gateway in
            let events = try await TestEvents.lines(2, in: gateway.directory)
            let body = try gateway.file("body.json", TestEvents.array(events))
            let first = try await gateway.curl(
                CurlResponse.post(
                    gateway.url, file: body, headers: ["Authorization: Bearer test-clinic-a", "Idempotency-Key: k-1"]))
            let other = try await gateway.curl(
                CurlResponse.post(
                    gateway.url, file: body, headers: ["Authorization: Bearer test-everyone", "Idempotency-Key: k-1"]))
            #expect(first.status == 202 && other.status == 202)
            #expect(other.headers["idempotent-replayed"] == nil, "another tenant's key is not replayed")
            #expect(try await gateway.records().count == 4)
        }
    }

    @Test("Idempotency keys are per scope: another key of the same tenant with another prefix never replays")
    func idempotencyKeysPerScope() async throws {
        try await InProcessGateway.run(verifier: Self.verifier) { gateway in
            let events = try await TestEvents.lines(4, in: gateway.directory)
            let body = try gateway.file("body.json", TestEvents.array(Array(events[0..<2])))
            let other = try gateway.file("other.json", TestEvents.array(Array(events[2..<4])))
            func post(_ file: URL, token: String) async throws -> CurlResponse {
                try await gateway.curl(
                    CurlResponse.post(
                        gateway.url, file: file, headers: ["Authorization: Bearer \(token)", "Idempotency-Key: k-2"]))
            }
            let narrow = try await post(body, token: "test-clinic-a")
            #expect(narrow.status == 202, "\(narrow.text)")
            // The same body under the wider scope of the same tenant: its own request, not the narrow key's receipt.
            let wide = try await post(body, token: "test-clinic-a-wide")
            #expect(wide.status == 202, "\(wide.text)")
            #expect(wide.headers["idempotent-replayed"] == nil, "another scope's receipt is not replayed")
            // Another body under the wider scope with that key: not a reuse of the narrow scope's key (no 422 that
            // would tell one scope what another sent).
            let wideOther = try await post(other, token: "test-clinic-a-wide")
            #expect(wideOther.status == 422, "within its own scope the key was used with another body")
            let narrowAgain = try await post(body, token: "test-clinic-a")
            #expect(narrowAgain.headers["idempotent-replayed"] == "true", "within one scope the receipt is replayed")
            #expect(narrowAgain.body == narrow.body)
            #expect(try await gateway.records().count == 4)
        }
    }
}
