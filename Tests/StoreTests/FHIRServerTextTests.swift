import FHIRServerStore
import Foundation
import StoreCore
import TestSupport
import Testing

/// What the FHIR store says of a server and of its credentials: a bearer token with a control character is refused
/// before any request carries it (header injection), and a server's 5xx text or a token endpoint's refusal reaches
/// no error (errors are logged): only the status, the issue code and a SHA-256 of the body.
@Suite(.timeLimit(.minutes(1)))
struct FHIRServerTextTests {
    static let injected = "tok\r\nX-Injected: yes"
    static let marker = "MARKER-S3CR3T-4242"

    @Test func aTokenFileWithALineBreakIsRefusedAndNeverSent() async throws {
        let double = try await FHIRDouble()
        try await double.set(["tokens": ["tok"]])
        let directory = try TestEnvironment.temporaryDirectory("fhir-token")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("token")
        try Self.injected.write(to: file, atomically: true, encoding: .utf8)
        let error = await #expect(throws: StoreError.self) {
            _ = try await FHIRObservationStore(
                configuration: FHIRAuthorizationTests.configuration(double, .bearerTokenFile(path: file.path)))
        }
        #expect(error?.code == .unauthorized, "\(String(describing: error))")
        #expect(error?.message.contains("control character") == true, "\(String(describing: error))")
        #expect(error.map { !"\($0)".contains("X-Injected") && !"\($0)".contains("tok\r") } == true)
        let stats = try await double.stats()
        #expect(stats["injected_headers"] == 0 && stats["requests"] == 0, "\(stats)")
    }

    @Test func anOAuthTokenWithALineBreakIsRefusedAndNeverSent() async throws {
        let double = try await FHIRDouble()
        try await double.set(["client": ["dvp-worker", "s"], "access_token": Self.injected])
        let grant = OAuth2ClientCredentials(tokenURL: double.rootURL + "/token", clientID: "dvp-worker", clientSecret: "s")
        let error = await #expect(throws: StoreError.self) {
            _ = try await FHIRObservationStore(
                configuration: FHIRAuthorizationTests.configuration(double, .clientCredentials(grant)))
        }
        #expect(error?.code == .unauthorized && error?.message.contains("control character") == true)
        #expect(error.map { !"\($0)".contains("X-Injected") } == true)
        let stats = try await double.stats()
        #expect(stats["tokens_issued"] == 1 && stats["injected_headers"] == 0 && stats["requests"] == 0, "\(stats)")
    }

    @Test func aRefusingTokenEndpointsTextAndTheSecretAreNotInTheError() async throws {
        let double = try await FHIRDouble()
        try await double.set(["client": ["dvp-worker", "right"], "token_echo": true])
        let grant = OAuth2ClientCredentials(
            tokenURL: double.rootURL + "/token?tenant=\(Self.marker)", clientID: "dvp-worker",
            clientSecret: Self.marker)
        let error = await #expect(throws: StoreError.self) {
            _ = try await FHIRObservationStore(
                configuration: FHIRAuthorizationTests.configuration(double, .clientCredentials(grant)))
        }
        let text = error.map { "\($0)" } ?? ""
        #expect(error?.nativeCode == "401" && text.contains("sha256"), "\(text)")
        #expect(!text.contains(Self.marker), "\(text)")
    }

    @Test func aServerErrorsTextIsNotInTheErrorOnlyItsStatusIssueCodeAndHash() async throws {
        let double = try await FHIRDouble()
        let store = try await FHIRObservationStore(
            configuration: FHIRAuthorizationTests.configuration(double, .none))
        defer { Task { await store.close() } }
        let text = "Patient/p-\(Self.marker) has value 71.4"
        try await double.set(["fail": 1, "fail_status": 500, "fail_diagnostics": text])
        let error = await #expect(throws: StoreError.self) {
            try await store.upsert([try FHIRStoreFaultTests.mapped(version: 1)])
        }
        let described = error.map { "\($0)" } ?? ""
        #expect(!described.contains(Self.marker), "\(described)")
        #expect(described.contains("HTTP 500, issue code exception, body sha256 "), "\(described)")
        #expect(error?.code == .connection && error?.nativeCode == "500")
    }
}
