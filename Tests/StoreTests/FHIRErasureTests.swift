import FHIRServerStore
import Foundation
import HTTPClient
import ObservationMapping
import StoreCore
import TestSupport
import Testing

/// Erasure and consent withdrawal on a real FHIR server (sekmet-fhir, strict validation): the ledger as `Basic`
/// resources on the server, the upsert path's `erased` outcome, and what the server keeps after a delete (sekmet has
/// no history purge, so the report says the history remains).
@Suite(.serialized, .timeLimit(.minutes(8)))
struct FHIRErasureTests {
    static let erased = "erasure-subject-7q3z"
    static let other = "erasure-bystander-k2"
    /// The ledger resources' tag system (FHIRErasureLedger.system).
    static let ledgerSystem = "https://fhir.example.org/CodeSystem/daily-values-pipeline/erasure"
    static let key = try! ErasureKey(key: Array("erasure-test-key-0123456789abcdef".utf8))

    /// A store on `server` with the erasure key and a short settle window (the request timeout bounds it below: each
    /// erasure waits that long). 3 s was too short for sekmet on a loaded machine (a clean-clone run: a transaction
    /// Bundle unanswered after 3,006 ms).
    static func open(_ server: TestFHIRServer, key: ErasureKey? = key) async throws -> FHIRObservationStore {
        var configuration = FHIRStoreConfiguration(baseURL: server.baseURL)
        configuration.erasureKey = key
        configuration.http.requestTimeout = .seconds(8)
        configuration.erasureSettle = .milliseconds(100)
        return try await FHIRObservationStore(configuration: configuration)
    }

    static func records(_ patient: String, days: ClosedRange<Int> = 1...3, version: Int64 = 5) throws
        -> [ObservationRecord]
    {
        try days.map { try FHIRStoreFaultTests.mapped(patient, day: $0, version: version) }
    }

    static func request(_ mode: ErasureMode, _ patients: [String] = [erased], dryRun: Bool = false) -> ErasureRequest {
        ErasureRequest(
            subjects: patients.map { .patient($0) }, mode: mode, reference: "TICKET-38", dryRun: dryRun, key: key)
    }

    /// A raw GET on the server (status and body text).
    static func get(_ server: TestFHIRServer, _ path: String) async throws -> (status: Int, text: String) {
        let http = try HTTPClient(HTTPClientConfiguration())
        defer { Task { await http.close() } }
        let response = try await http.send(
            HTTPRequest(
                method: "GET", url: server.baseURL + "/" + path, headers: [("Accept", "application/fhir+json")],
                body: nil))
        return (response.status, response.text)
    }

    @Test func erasingOnePersonDeletesTheirsOnlyAndRefusesTheirLaterEvents() async throws {
        let server = try await TestFHIRServer(validation: .strict)
        let store = try await Self.open(server)
        let worker = try await Self.open(server)  // another worker: its cached ledger generation must be noticed
        let mine = try Self.records(Self.erased)
        #expect(try await store.upsert(mine + Self.records(Self.other)) == Array(repeating: .inserted, count: 6))
        #expect(try await worker.upsert(try Self.records(Self.other, days: 4...4)) == [.inserted])
        let othersBefore = try await store.observations(patient: Self.other)
        #expect(try await store.ledgerGeneration() == 0)

        let report = try await store.erase(Self.request(.erase))
        let subject = try #require(report.subjects.first)
        #expect(subject.recorded && subject.deleted.observations == 3)
        #expect(subject.pseudonym == Self.key.pseudonym(of: Self.erased))
        // sekmet keeps every version of a deleted resource and cannot purge them: said, so storectl exits 1.
        #expect(!report.isComplete)
        #expect(
            subject.remaining == [
                "the FHIR server keeps the history of 3 deleted Observations of this person "
                    + "(it has no history purge: delete them on the server, e.g. from its database)"
            ])

        #expect(try await store.observations(patient: Self.erased).isEmpty)
        for record in mine {
            #expect(try await Self.get(server, "Observation/\(record.resourceID)").status == 410)
            let history = try await Self.get(server, "Observation/\(record.resourceID)/_history")
            #expect(history.text.contains(Self.erased), "sekmet's history still holds the deleted versions")
        }
        #expect(try await store.observations(patient: Self.other) == othersBefore)

        // Later, replayed and new events of the person: `erased`, nothing written, through either store.
        let later = try Self.records(Self.erased, days: 1...5, version: 9)
        #expect(try await worker.upsert(later) == Array(repeating: .erased, count: 5))
        #expect(
            try await store.upsert(mine + Self.records(Self.other, days: 5...5)) == [
                .erased, .erased, .erased, .inserted,
            ])
        #expect(try await store.observations(patient: Self.erased).isEmpty)
        #expect(try await worker.outcomeCounts().contains { $0.outcome == .erased && $0.count == 5 })

        // A rerun records nothing new and still says what the server keeps.
        let rerun = try await store.erase(Self.request(.erase))
        #expect(rerun.subjects.map(\.recorded) == [false] && rerun.subjects.first?.deleted.observations == 0)
        #expect(rerun.subjects.first?.remaining.first?.contains("history of 3 deleted") == true)
        let ledger = try await store.erasureLedger()
        #expect(ledger.count == 1 && ledger.first?.mode == .erase && ledger.first?.completedAt == nil)
        #expect(ledger.first?.deleted.observations == 3 && ledger.first?.reference == "TICKET-38")
        await store.close()
        await worker.close()
    }

    @Test func withdrawalKeepsWhatIsStoredAndRefusesNewEventsUntilLifted() async throws {
        let server = try await TestFHIRServer(validation: .strict)
        let store = try await Self.open(server)
        let stored = try Self.records(Self.erased, days: 1...2)
        _ = try await store.upsert(stored)
        let before = try await store.observations(patient: Self.erased)

        let withdrawal = try await store.erase(Self.request(.withdraw))
        #expect(withdrawal.isComplete && withdrawal.subjects.map(\.recorded) == [true])
        #expect(try await store.observations(patient: Self.erased) == before)
        #expect(try await store.upsert(try Self.records(Self.erased, days: 3...3)) == [.erased])
        #expect(try await store.upsert(try Self.records(Self.erased, days: 1...1, version: 6)) == [.erased])
        #expect(try await store.observations(patient: Self.erased) == before)
        #expect(try await store.refusedPseudonyms().pseudonyms == [Self.key.pseudonym(of: Self.erased)])
        // A retraction of the person is `erased` too (not refused, which would dead-letter it with its content).
        let retraction = ObservationRecord.retraction(
            identity: stored[0].identity, version: 7, resourceID: stored[0].resourceID, reason: "test")
        #expect(try await store.upsert([retraction]) == [.erased])
        // A second withdrawal records nothing.
        #expect(try await store.erase(Self.request(.withdraw)).subjects.map(\.recorded) == [false])

        let lift = try await store.erase(Self.request(.lift))
        #expect(lift.isComplete && lift.subjects.map(\.recorded) == [true])
        #expect(try await store.upsert(try Self.records(Self.erased, days: 3...3)) == [.inserted])
        #expect(try await store.refusedPseudonyms().pseudonyms.isEmpty)
        #expect(try await store.erasureLedger().map(\.mode) == [.withdraw, .lift])
        #expect(try await store.erasureLedger().map(\.sequence) == [1, 2])

        // An erasure cannot be lifted.
        _ = try await store.erase(Self.request(.erase))
        let error = await #expect(throws: StoreError.self) { try await store.erase(Self.request(.lift)) }
        #expect(error?.code == .usage)
        #expect(try await store.erasureLedger().map(\.mode) == [.withdraw, .lift, .erase])
        await store.close()
    }

    @Test func aDryRunCountsAndChangesNothing() async throws {
        let server = try await TestFHIRServer(validation: .strict)
        let store = try await Self.open(server)
        _ = try await store.upsert(try Self.records(Self.erased) + Self.records(Self.other))
        let before = try await store.allVersions()
        let report = try await store.erase(Self.request(.erase, [Self.erased, Self.other], dryRun: true))
        #expect(
            report.subjects.map(\.deleted.observations) == [3, 3] && report.subjects.map(\.recorded) == [false, false])
        #expect(try await store.erasureLedger().isEmpty)
        #expect(try await store.ledgerGeneration() == 0)
        #expect(try await store.allVersions() == before)
        #expect(try await store.upsert(try Self.records(Self.erased)) == Array(repeating: .unchanged, count: 3))
        let ledger = try await Self.get(server, "Basic?_tag=" + Self.ledgerSystem + "%7C")
        #expect(ledger.status == 200 && ledger.text.contains("\"total\":0"), "\(ledger.text.prefix(300))")
        await store.close()
    }

    @Test func theLedgerOnTheServerHoldsNoPatientID() async throws {
        let server = try await TestFHIRServer(validation: .strict)
        let store = try await Self.open(server)
        _ = try await store.upsert(try Self.records(Self.erased) + Self.records(Self.other))
        _ = try await store.erase(Self.request(.erase))
        _ = try await store.erase(Self.request(.withdraw, [Self.other]))
        // Every version of every ledger resource the server keeps (entries, their completions, the state).
        let history = try await Self.get(server, "Basic/_history?_count=1000")
        #expect(history.status == 200 && history.text.contains("\"total\":"))
        #expect(history.text.contains(Self.key.pseudonym(of: Self.erased).hex))
        #expect(history.text.contains(Self.key.pseudonym(of: Self.other).hex))
        #expect(!history.text.contains(Self.erased) && !history.text.contains(Self.other))
        #expect(!history.text.contains("erasure-subject") && !history.text.contains("bystander"))
        #expect(try await store.ledgerGeneration() > 0)
        await store.close()
    }

    @Test func aStoreWithoutTheKeyOrWithAnotherIsRefused() async throws {
        let server = try await TestFHIRServer(validation: .strict)
        let store = try await Self.open(server)
        _ = try await store.erase(Self.request(.withdraw))
        // A worker without the key cannot tell whom the ledger refuses: it writes nothing.
        let keyless = try await Self.open(server, key: nil)
        let refusal = await #expect(throws: StoreError.self) { try await keyless.upsert(try Self.records(Self.other)) }
        #expect(refusal?.code == .usage)
        // Another key is refused too, for writes and for erasures.
        let otherKey = try ErasureKey(key: Array("another-erasure-key-0123456789ab".utf8))
        let other = try await Self.open(server, key: otherKey)
        await #expect(throws: StoreError.self) { _ = try await other.upsert(try Self.records(Self.other)) }
        let request = ErasureRequest(subjects: [.patient(Self.other)], mode: .erase, reference: "T", key: otherKey)
        await #expect(throws: StoreError.self) { _ = try await store.erase(request) }
        for opened in [store, keyless, other] { await opened.close() }
    }

    /// A worker keeps writing the person while the erasure runs: what its batches in flight wrote before they saw
    /// the entry is deleted by the search after the settle window; afterwards nothing of the person remains and
    /// every later write is `erased`.
    @Test func batchesInFlightDuringTheErasureLeaveNothingBehind() async throws {
        let server = try await TestFHIRServer(validation: .strict)
        let store = try await Self.open(server)
        let worker = try await Self.open(server)
        _ = try await store.upsert(try Self.records(Self.erased, days: 1...9, version: 1))
        let writing = Task {
            var outcomes: [UpsertResult] = []
            for version in Int64(2)...Int64(40) {
                let results = try await worker.upsert(try Self.records(Self.erased, days: 1...9, version: version))
                outcomes += results
                if outcomes.suffix(9) == Array(repeating: .erased, count: 9) { break }
            }
            return outcomes
        }
        try await Task.sleep(for: .milliseconds(300))
        let report = try await store.erase(Self.request(.erase))
        let outcomes = try await writing.value
        #expect(outcomes.contains(.updated), "the worker wrote the person before the erasure")
        #expect(outcomes.suffix(9) == Array(repeating: .erased, count: 9))
        #expect(try await store.observations(patient: Self.erased).isEmpty)
        #expect(report.subjects.first?.remaining.count == 1)  // only the history sekmet keeps
        let later = try await worker.upsert(try Self.records(Self.erased, days: 1...9, version: 99))
        #expect(later == Array(repeating: .erased, count: 9))
        await store.close()
        await worker.close()
    }

    @Test func theHistoryPurgeFollowsTheServerKind() {
        #expect(FHIRHistoryPurge.detected(software: "HAPI FHIR Server 7.4.0") == .expunge)
        #expect(FHIRHistoryPurge.detected(software: "Microsoft FHIR Server 4.0") == .hardDelete)
        #expect(FHIRHistoryPurge.detected(software: "Sekmet 0.1.0") == FHIRHistoryPurge.none)
    }

    /// `--reapply-ledger` after a backup was restored: the ledger's pseudonyms alone find the persons by hashing
    /// the patient of every Observation the store wrote.
    @Test func aPseudonymAloneFindsThePersonByHashingThePatientsStored() async throws {
        let server = try await TestFHIRServer(validation: .strict)
        let store = try await Self.open(server)
        _ = try await store.upsert(try Self.records(Self.erased) + Self.records(Self.other))
        let othersBefore = try await store.observations(patient: Self.other)
        let absent = Self.key.pseudonym(of: "never-stored-person")
        let request = ErasureRequest(
            subjects: [.pseudonym(Self.key.pseudonym(of: Self.erased)), .pseudonym(absent)], mode: .erase,
            reference: "RESTORE-1", key: Self.key)
        let dryRun = try await store.erase(
            ErasureRequest(subjects: request.subjects, mode: .erase, reference: "R", dryRun: true, key: Self.key))
        #expect(dryRun.subjects.map(\.deleted.observations) == [3, 0])
        let report = try await store.erase(request)
        #expect(report.subjects.map(\.recorded) == [true, true])
        #expect(report.subjects.map(\.deleted.observations) == [3, 0])
        #expect(try await store.observations(patient: Self.erased).isEmpty)
        #expect(try await store.observations(patient: Self.other) == othersBefore)
        #expect(try await store.upsert(try Self.records(Self.erased)) == Array(repeating: .erased, count: 3))
        await store.close()
    }
}
