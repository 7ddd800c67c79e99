import DailyValueContract
@testable import FHIRServerStore
import Foundation
import HTTPClient
import ObservationMapping
import StoreCore
import TestSupport
import Testing

/// The FHIR store's authorization against the double's token checks: a bearer token file (re-read when it changes),
/// OAuth2 client credentials (cached until shortly before expiry), and 401/403 as retriable `unauthorized` errors.
/// The limit catches a hang, not a slow machine: with every suite starting at once on 2 loaded cores one of these
/// took 52 s where it takes about 1 s alone.
@Suite(.timeLimit(.minutes(3)))
struct FHIRAuthorizationTests {
    static func configuration(_ double: FHIRDouble, _ authorization: FHIRAuthorization) -> FHIRStoreConfiguration {
        var configuration = FHIRStoreConfiguration(baseURL: double.baseURL)
        configuration.authorization = authorization
        return configuration
    }

    @Test func aBearerTokenFileIsReadAgainWhenItChanges() async throws {
        let double = try await FHIRDouble()
        try await double.set(["tokens": ["secret-1"]])
        let directory = try TestEnvironment.temporaryDirectory("fhir-token")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("token")
        try "wrong\n".write(to: file, atomically: true, encoding: .utf8)
        let configuration = Self.configuration(double, .bearerTokenFile(path: file.path))

        let refused = await #expect(throws: StoreError.self) {
            _ = try await FHIRObservationStore(configuration: configuration)
        }
        #expect(refused?.code == .unauthorized && refused?.nativeCode == "401" && refused?.isRetriable == true)

        try "secret-1\n".write(to: file, atomically: true, encoding: .utf8)
        let store = try await FHIRObservationStore(configuration: configuration)
        #expect(try await store.upsert([try FHIRStoreFaultTests.mapped(version: 1)]) == [.inserted])
        // Rotation: the server moves to a new token, then the file follows.
        try await double.set(["tokens": ["secret-2"]])
        await #expect(throws: StoreError.self) { try await store.upsert([try FHIRStoreFaultTests.mapped(version: 2)]) }
        try "secret-2\n".write(to: file, atomically: true, encoding: .utf8)
        #expect(try await store.upsert([try FHIRStoreFaultTests.mapped(version: 2)]) == [.updated])
        await store.close()
    }

    /// `storectl` takes the worker's `--fhir-*` flags (one definition) and their `DVP_FHIR_*` twins.
    @Test func storectlTakesTheWorkersFHIRFlags() async throws {
        let double = try await FHIRDouble()
        try await double.set(["tokens": ["secret-1"]])
        let directory = try TestEnvironment.temporaryDirectory("fhir-token")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("token")
        try "secret-1\n".write(to: file, atomically: true, encoding: .utf8)
        let store = try await FHIRObservationStore(
            configuration: Self.configuration(double, .bearerTokenFile(path: file.path)))
        let record = try FHIRStoreFaultTests.mapped(version: 7)
        #expect(try await store.upsert([record]) == [.inserted])
        await store.close()

        let location = ["--store", "fhir+" + double.baseURL]
        let storectl = try ChildProcess.storectl()
        let refused = try await ChildProcess.run(storectl, ["dump"] + location)
        #expect(refused.status == 1 && refused.standardError.contains("401"), "\(refused.standardError)")
        let dumped = try await ChildProcess.storectl(["dump"] + location + ["--fhir-token-file", file.path])
        #expect(dumped.standardOutput == "\(record.identity.key)\t7\n")
        let twin = try await ChildProcess.run(
            storectl, ["dump"] + location, environment: ["DVP_FHIR_TOKEN_FILE": file.path])
        #expect(twin.status == 0 && twin.standardOutput == dumped.standardOutput, "\(twin.standardError)")
        let other = try await ChildProcess.storectl(
            ["dump"] + location + ["--fhir-token-file", file.path, "--fhir-version-tag-system", "urn:example:other"])
        #expect(other.standardOutput.isEmpty)
        let usage = try await ChildProcess.run(storectl, ["dump"] + location + ["--fhir-token-file", "/nonexistent"])
        #expect(usage.status == 2 && usage.standardError.contains("--fhir-token-file"), "\(usage.standardError)")
    }

    @Test func forbiddenIsARetriableUnauthorizedError() async throws {
        let double = try await FHIRDouble()
        let store = try await FHIRObservationStore(configuration: Self.configuration(double, .none))
        try await double.set(["forbidden": true])
        let error = await #expect(throws: StoreError.self) {
            try await store.upsert([try FHIRStoreFaultTests.mapped(version: 1)])
        }
        #expect(error?.code == .unauthorized && error?.nativeCode == "403" && error?.isRetriable == true)
        try await double.set(["forbidden": false])
        #expect(try await store.upsert([try FHIRStoreFaultTests.mapped(version: 1)]) == [.inserted])
        await store.close()
    }

    /// Requests that find no token while one is being fetched wait for that one: the endpoint is asked once.
    @Test func concurrentRequestsWithoutATokenShareOneTokenRequest() async throws {
        let double = try await FHIRDouble()
        try await double.set(["client": ["dvp-worker", "s3cret"], "token_lifetime": 3600])
        let grant = OAuth2ClientCredentials(tokenURL: double.rootURL + "/token", clientID: "dvp-worker", clientSecret: "s3cret")
        let token = FHIRAccessToken(.clientCredentials(grant), http: try HTTPClient(HTTPClientConfiguration()))
        let headers = try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<8 { group.addTask { try await token.header() } }
            return try await group.reduce(into: Set<String?>()) { $0.insert($1) }
        }
        #expect(headers == ["Bearer issued-1"])
        #expect(try await double.stats()["tokens_issued"] == 1)
    }

    @Test func clientCredentialsTokensAreCachedUntilShortlyBeforeExpiry() async throws {
        let double = try await FHIRDouble()
        // Caching: an hour-long token serves every batch, however slow a loaded machine makes them.
        try await double.set(["client": ["dvp-worker", "s3cret&="], "token_lifetime": 3600, "tokens": ["bootstrap"]])
        let grant = OAuth2ClientCredentials(
            tokenURL: double.rootURL + "/token", clientID: "dvp-worker", clientSecret: "s3cret&=",
            scope: "system/Observation.write")
        let cached = try await FHIRObservationStore(configuration: Self.configuration(double, .clientCredentials(grant)))
        for version in 1...3 {
            _ = try await cached.upsert([try FHIRStoreFaultTests.mapped(version: Int64(version))])
        }
        #expect(try await double.stats()["tokens_issued"] == 1)
        await cached.close()

        // Refresh: a 3 s token is replaced once it is within 1 s of expiry. Waiting past that point can only be made
        // longer by load, never shorter, so the second token is always due.
        try await double.set(["token_lifetime": 3])
        let refreshing = try await FHIRObservationStore(
            configuration: Self.configuration(double, .clientCredentials(grant)))
        #expect(try await refreshing.upsert([try FHIRStoreFaultTests.mapped(version: 4)]) == [.updated])
        let issuedBefore = try #require(try await double.stats()["tokens_issued"])
        try await Task.sleep(for: .milliseconds(2500))
        #expect(try await refreshing.upsert([try FHIRStoreFaultTests.mapped(version: 5)]) == [.updated])
        // At least one refresh (a second one if the machine took over 2 s between this batch's two requests).
        #expect(try #require(try await double.stats()["tokens_issued"]) >= issuedBefore + 1)
        await refreshing.close()

        var wrong = grant
        wrong.clientSecret = "nope"
        let error = await #expect(throws: StoreError.self) {
            _ = try await FHIRObservationStore(configuration: Self.configuration(double, .clientCredentials(wrong)))
        }
        #expect(error?.code == .unauthorized && error?.message.contains("invalid_client") == true)
    }
}
