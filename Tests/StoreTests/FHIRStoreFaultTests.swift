import DailyValueContract
@testable import FHIRServerStore
import Foundation
import HTTPClient
import ObservationMapping
import StoreCore
import TestSupport
import Testing

/// The FHIR store against the FHIR double's quirks (what sekmet-fhir cannot be made to show on demand), with real
/// mapped Observations. Every case checks what the server holds afterwards, not only the outcomes.
@Suite(.timeLimit(.minutes(2)))
struct FHIRStoreFaultTests {
    /// A mapped heart-rate Observation of `patient` on 2026-10-0`day` with `version`.
    static func mapped(_ patient: String = "p-1", day: Int = 1, version: Int64, value: Double = 70)
        throws -> ObservationRecord
    {
        let event = Fixtures.event([
            "patient": "\"\(patient)\"", "day": "\"2026-10-0\(day)\"", "version": "\(version)", "value": "\(value)",
        ])
        let validated = try Fixtures.decoder.validate(event, recordTimestampMs: Fixtures.ms("2026-10-05T00:00:00Z"))
        return try Fixtures.mapper.map(validated, recordTimestampMs: Fixtures.ms("2026-10-05T00:00:00Z"))
    }

    static func open(_ double: FHIRDouble, _ adjust: (inout FHIRStoreConfiguration) -> Void = { _ in })
        async throws -> FHIRObservationStore
    {
        var configuration = FHIRStoreConfiguration(baseURL: double.baseURL)
        configuration.maxRetryAfter = .seconds(2)
        adjust(&configuration)
        return try await FHIRObservationStore(configuration: configuration)
    }

    @Test(arguments: [409, 412])
    func aWriterInBetweenIsReadAgainAndTheHigherVersionWins(conflictStatus: Int) async throws {
        let double = try await FHIRDouble()
        let store = try await Self.open(double)
        #expect(
            try await store.upsert([try Self.mapped(version: 5), try Self.mapped(day: 2, version: 5)]) == [
                .inserted, .inserted,
            ])
        let lower = try Self.mapped(version: 6)  // another writer puts 6 between our read and our write of 9 …
        let higher = try Self.mapped(day: 2, version: 20)  // … and 20 before our 9 on day 2
        try await double.set([
            "conflict_status": conflictStatus,
            "interpose": [
                lower.resourceID: try Self.json(lower), higher.resourceID: try Self.json(higher),
            ],
        ])
        let outcomes = try await store.upsert([try Self.mapped(version: 9), try Self.mapped(day: 2, version: 9)])
        #expect(outcomes == [.updated, .stale])
        #expect(try await store.allVersions() == [lower.identity: 9, higher.identity: 20])
        let stats = try await double.stats()
        #expect(stats["conflicts"] == 2)
        await store.close()
    }

    @Test func identicalPutsThatBumpTheVersionAreNeverSent() async throws {
        let double = try await FHIRDouble()
        try await double.set(["bump_identical": true])
        let store = try await Self.open(double)
        #expect(try await store.upsert([try Self.mapped(version: 5)]) == [.inserted])
        for _ in 0..<3 { #expect(try await store.upsert([try Self.mapped(version: 5)]) == [.unchanged]) }
        #expect(try await store.upsert([try Self.mapped(version: 4)]) == [.stale])
        let stored = try #require(try await store.observation(for: try Self.mapped(version: 5).identity))
        #expect(stored.versionId == 1)
        #expect(try await double.stats()["puts"] == 1)
        await store.close()
    }

    @Test func throttlingHonoursRetryAfterThenSucceeds() async throws {
        let double = try await FHIRDouble()
        let store = try await Self.open(double)
        // 2 × 1.5 s: longer than the 1 s used without a Retry-After, shorter than the 2 s cap (open sets it).
        try await double.set(["throttle": 2, "retry_after": "1.5"])
        let started = ContinuousClock.now
        #expect(try await store.upsert([try Self.mapped(version: 5)]) == [.inserted])
        let elapsed = ContinuousClock.now - started
        // A lower bound only: load can make the run slower, never faster. Without the header the two waits would
        // be 2 × 1 s, so 3 s proves the header was honoured.
        #expect(elapsed >= .seconds(3), "\(elapsed)")
        #expect(try await double.stats()["throttled"] == 2)
        await store.close()
    }

    @Test func throttlingBeyondTheAttemptsIsARetriableBusyError() async throws {
        let double = try await FHIRDouble()
        let store = try await Self.open(double) { $0.throttleAttempts = 2 }
        try await double.set(["throttle": 5, "retry_after": "0"])
        let error = await #expect(throws: StoreError.self) { try await store.upsert([try Self.mapped(version: 5)]) }
        #expect(error?.code == .busy && error?.nativeCode == "429" && error?.isRetriable == true)
        await store.close()
    }

    /// A burst of 5xx fails the upsert retriably; the retry (the worker's) decides every record exactly once.
    @Test func serverErrorsAreRetriableAndTheRetryConverges() async throws {
        let double = try await FHIRDouble()
        let store = try await Self.open(double)
        try await double.set(["fail": 1, "fail_status": 502])
        let batch = try (1...3).map { try Self.mapped(day: $0, version: 5) }
        let error = await #expect(throws: StoreError.self) { try await store.upsert(batch) }
        #expect(error?.code == .connection && error?.nativeCode == "502" && error?.isRetriable == true)
        #expect(try await store.upsert(batch) == [.inserted, .inserted, .inserted])
        #expect(try await store.upsert(batch) == [.unchanged, .unchanged, .unchanged])
        await store.close()
    }

    @Test func aSlowServerPastTheRequestTimeoutIsARetriableTimeout() async throws {
        let double = try await FHIRDouble()
        let store = try await Self.open(double) { $0.http.requestTimeout = .milliseconds(500) }
        try await double.set(["delay_ms": 1500])
        let error = await #expect(throws: StoreError.self) { try await store.upsert([try Self.mapped(version: 5)]) }
        #expect(error?.code == .timeout && error?.isRetriable == true)
        #expect(try await double.stats()["puts"] == 0)  // the batch read timed out: nothing was written
        try await double.set(["delay_ms": 0])
        #expect(try await store.upsert([try Self.mapped(version: 5)]) == [.inserted])
        await store.close()
    }

    /// HAPI's referential integrity: an Observation whose `Patient/{id}` does not exist is refused (400) for that
    /// record only; the others are decided and stored.
    @Test func aRefusedRecordIsReportedWithTheServersReasonAndTheRestIsStored() async throws {
        let double = try await FHIRDouble(patients: ["p-1"])
        try await double.set(["require_patient": true])
        let store = try await Self.open(double)
        let batch = [try Self.mapped(version: 5), try Self.mapped("p-404", version: 5), try Self.mapped(version: 4)]
        let results = try await store.upsert(batch)
        #expect(results.map(\.outcome) == [.inserted, nil, .stale])
        #expect(results.compactMap(\.refusalReason).count == 1)
        #expect(results[1].refusalReason?.contains("Patient/p-404 not found") == true, "\(results)")
        #expect(try await store.allVersions() == [batch[0].identity: 5])
        #expect(try await store.outcomeCounts().map(\.count).reduce(0, +) == 2)
        await store.close()
    }

    /// A server that truncates identifiers breaks reads by identity, never the version guard (keyed by id + tag).
    @Test func identifierTruncationDoesNotBreakTheVersionGuard() async throws {
        let double = try await FHIRDouble()
        try await double.set(["truncate_identifier": 8])
        let store = try await Self.open(double)
        #expect(try await store.upsert([try Self.mapped(version: 5)]) == [.inserted])
        #expect(try await store.upsert([try Self.mapped(version: 4)]) == [.stale])
        #expect(try await store.upsert([try Self.mapped(version: 6)]) == [.updated])
        #expect(try await store.observation(for: try Self.mapped(version: 6).identity) == nil)
        await store.close()
    }

    /// HAPI carries old tags into an update: a copy another client wrote at 5 and then 7 (without
    /// `X-Meta-Snapshot-Mode: TAG`) holds both version tags and is judged at the highest, so 6 is stale. The store's
    /// own writes ask for a tag snapshot and leave exactly one version tag.
    @Test func mergedVersionTagsAreJudgedAtTheHighest() async throws {
        let double = try await FHIRDouble()
        try await double.set(["merge_tags": true])
        let store = try await Self.open(double)
        let http = try HTTPClient(HTTPClientConfiguration())
        let url = double.baseURL + "/Observation/" + (try Self.mapped(version: 5)).resourceID
        for version: Int64 in [5, 7] {
            let response = try await http.send(
                HTTPRequest(
                    method: "PUT", url: url, headers: [("Content-Type", "application/fhir+json")],
                    body: FHIRStoreConfiguration(baseURL: "").resource(for: try Self.mapped(version: version))))
            #expect((200..<300).contains(response.status), "\(response.text)")
        }
        let versionTags = { () async throws -> [String] in
            let response = try await http.send(HTTPRequest(method: "GET", url: url))
            let resource = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
            let tags = (resource["meta"] as? [String: Any])?["tag"] as? [[String: Any]] ?? []
            return tags.filter { $0["system"] as? String == FHIRStoreConfiguration.defaultVersionTagSystem }
                .compactMap { $0["code"] as? String }
        }
        #expect(try await versionTags() == ["5", "7"])
        #expect(try await store.upsert([try Self.mapped(version: 6)]) == [.stale])
        #expect(try await store.allVersions() == [try Self.mapped(version: 6).identity: 7])
        #expect(try await store.upsert([try Self.mapped(version: 9)]) == [.updated])
        #expect(try await versionTags() == ["9"])
        await store.close()
    }

    @Test func aBaseWithoutAFHIRServerIsAConfigurationError() async throws {
        let double = try await FHIRDouble()
        let error = await #expect(throws: StoreError.self) {
            _ = try await FHIRObservationStore(configuration: FHIRStoreConfiguration(baseURL: double.rootURL + "/r4"))
        }
        #expect(error?.code == .usage && error?.nativeCode == "404")
        let store = try await Self.open(double)
        #expect(store.serverCapabilities.missing.isEmpty, "\(store.serverCapabilities)")
        await store.close()
    }

    /// The resource as the store writes it, with the version tag (what a concurrent writer would PUT).
    static func json(_ record: ObservationRecord) throws -> [String: Any] {
        let bytes = FHIRStoreConfiguration(baseURL: "").resource(for: record)
        return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }
}

@Suite struct FHIRRetryAfterTests {
    static func wait(_ value: String?) throws -> Duration {
        var configuration = FHIRStoreConfiguration(baseURL: "http://127.0.0.1:1/fhir")
        configuration.maxRetryAfter = .seconds(30)
        let client = FHIRRestClient(
            http: try HTTPClient(HTTPClientConfiguration()),
            token: FHIRAccessToken(.none, http: try HTTPClient(HTTPClientConfiguration())), configuration: configuration)
        let headers = value.map { [(name: "retry-after", value: $0)] } ?? []
        return client.retryAfter(HTTPResponse(status: 429, headers: headers, body: [], httpVersion: "1.1"))
    }

    @Test func secondsDatesAbsenceAndTheCap() throws {
        #expect(try Self.wait("0.5") == .milliseconds(500))
        #expect(try Self.wait("7") == .seconds(7))
        #expect(try Self.wait("3600") == .seconds(30))
        #expect(try Self.wait(nil) == .seconds(1))
        #expect(try Self.wait("soon") == .seconds(1))
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let inTen = try Self.wait(formatter.string(from: Date().addingTimeInterval(10)))
        #expect(inTen > .seconds(5) && inTen <= .seconds(10), "\(inTen)")
    }
}
