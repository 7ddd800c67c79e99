import Foundation
import TestSupport
import Testing

/// The `ingest` process with the product's verifiers (`--api-keys`, `--jwks` with `--jwt-audience` and
/// `--jwt-issuer`), driven by curl: the scope a credential grants decides 202 or 403, a refused credential is 401
/// with `WWW-Authenticate`, and a replaced key file is re-read.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct IngestCredentialTests {
    @Test(
        "API keys: the right key 202, an unknown one 401, a patient outside its prefix 403; a replaced file is re-read")
    func apiKeys() async throws {
        let stack = try GatewayStack()
        try await stack.startBroker()
        let keys = stack.directory.appendingPathComponent("api-keys")
        let first = try await TestCredentials.apiKeyLine("clinic-a-key-1", tenant: "clinic-a", patients: "p-0000")
        let narrow = try await TestCredentials.apiKeyLine("clinic-z-key", tenant: "clinic-z", patients: "zz-")
        try Data(("# keys of the test\n" + first + narrow).utf8).write(to: keys)
        try await stack.startGateway(["--api-keys", keys.path])
        #expect(stack.gateway?.stderr.contains("INSECURE") == false)
        let body = try stack.file("body.json", TestEvents.array(try await TestEvents.lines(3, in: stack.directory)))
        func post(_ key: String) async throws -> CurlResponse {
            try await stack.curl(CurlResponse.post(stack.url, file: body, headers: ["Authorization: Bearer \(key)"]))
        }
        #expect(try await post("clinic-a-key-1").status == 202)
        let unknown = try await post("clinic-a-key-2")
        #expect(unknown.status == 401)
        #expect(unknown.headers["www-authenticate"] == #"Bearer realm="dvp-ingest", error="invalid_token""#)
        let outside = try await post("clinic-z-key")
        #expect(outside.status == 403)
        #expect(outside.errors.count == 3)

        // Rotation: the file is replaced (mv, atomic) with the second key only.
        let second = try await TestCredentials.apiKeyLine("clinic-a-key-2", tenant: "clinic-a", patients: "p-0000")
        let replacement = stack.directory.appendingPathComponent("api-keys.new")
        try Data(second.utf8).write(to: replacement)
        #expect(try await runCommand("/bin/mv", [replacement.path, keys.path]).status == 0)
        #expect(await eventually(timeout: .seconds(10)) { (try? await post("clinic-a-key-2").status) == 202 })
        #expect(try await post("clinic-a-key-1").status == 401, "the removed key is refused")

        // A re-read that yields no key (a broken deployment emptied the file): the last good keys stay, loudly.
        try Data("# emptied\n".utf8).write(to: replacement)
        #expect(try await runCommand("/bin/mv", [replacement.path, keys.path]).status == 0)
        let refusal = "a changed credential file is refused; the previous one stays in use"
        var statuses: [Int] = []
        // The file is checked when a request comes (at most once a second): post until the refusal is logged.
        let logged = try await eventually(timeout: .seconds(10)) {
            statuses.append(try await post("clinic-a-key-2").status)
            return stack.gateway?.stderr.contains(refusal) == true
        }
        #expect(logged, "the refused re-read is logged as an error")
        #expect(stack.gateway?.stderr.contains("holds no API key") == true)
        #expect(try await post("clinic-a-key-2").status == 202, "the last good key set is still in use")
        #expect(statuses.allSatisfy { $0 == 202 }, "\(statuses)")
        #expect(try await stack.records().count == 6 + 3 * (statuses.count + 1))
        #expect(stack.gateway?.stderr.contains("clinic-a-key") == false, "a key never reaches the log")
    }

    @Test("An API key file without a key stops the start (exit 2) naming the file, not its contents")
    func emptyKeyFileAtStart() async throws {
        let directory = try TestEnvironment.temporaryDirectory("dvp-ingest-keys")
        defer { try? FileManager.default.removeItem(at: directory) }
        let keys = directory.appendingPathComponent("api-keys")
        try Data("# the keys come later\n\n".utf8).write(to: keys)
        let gateway = try ChildProcess(
            TestEnvironment.binary("ingest"),
            ["--brokers", "127.0.0.1:1", "--http-address", "127.0.0.1", "--http-port", "0", "--api-keys", keys.path],
            directory: directory)
        defer { gateway.terminate() }
        // A refused start exits at once; a gateway that starts anyway would serve (401 to everything) until killed.
        #expect(await gateway.waitForExit(timeout: .seconds(20)) == 2, "\(gateway.stderr)")
        #expect(gateway.stderr.contains("--api-keys: \(keys.path): holds no API key"), "\(gateway.stderr)")
        #expect(!gateway.stderr.contains("the keys come later"), "the file's text is never echoed")
    }

    @Test("JWTs: RS256 from the JWKS with audience, issuer and scope claims; expired or for another audience 401")
    func jwts() async throws {
        let stack = try GatewayStack()
        try await stack.startBroker()
        let (signer, jwks) = try await TestCredentials.rsaSigner(in: stack.directory)
        try await stack.startGateway([
            "--jwks", jwks.path, "--jwt-audience", "dvp-ingest", "--jwt-issuer", "https://idp.test",
            "--jwt-max-lifetime", "900",
        ])
        let body = try stack.file("body.json", TestEvents.array(try await TestEvents.lines(2, in: stack.directory)))
        func post(_ token: String) async throws -> CurlResponse {
            try await stack.curl(CurlResponse.post(stack.url, file: body, headers: ["Authorization: Bearer \(token)"]))
        }
        let claims = TestCredentials.claims(
            audience: "dvp-ingest", issuer: "https://idp.test", tenant: "t1", patients: "*")
        let accepted = try await post(try await signer.token(claims))
        #expect(accepted.status == 202, "\(accepted.text)")
        var expired = claims
        expired["exp"] = Int(Date().timeIntervalSince1970) - 3600
        let late = try await post(try await signer.token(expired))
        #expect(late.status == 401)
        #expect(late.headers["www-authenticate"]?.contains(#"error_description="the token expired""#) == true)
        var other = claims
        other["aud"] = "someone-else"
        #expect(try await post(try await signer.token(other)).status == 401)
        let longLived = TestCredentials.claims(
            audience: "dvp-ingest", issuer: "https://idp.test", tenant: "t1", patients: "*", expiresIn: 1200)
        #expect(try await post(try await signer.token(longLived)).status == 401, "past --jwt-max-lifetime 900")
        var narrow = claims
        narrow["dvp_patient_prefix"] = "zz-"
        #expect(try await post(try await signer.token(narrow)).status == 403)
        #expect(try await stack.records().count == 2)
    }
}
