import FHIRServerStore
import Foundation
import HTTPClient
import ObservationMapping
import StoreCore
import TestSupport
import Testing

/// The two paths where a FHIR server could end up holding a stale or foreign copy: a create that races another
/// writer's create (FHIR R4 has no create-only PUT), and a stored copy without the product's version tag. Every case
/// checks what the server holds afterwards and that no outcome claims more than the server proves.
@Suite(.timeLimit(.minutes(2)))
struct FHIRCreateRaceTests {
    typealias Fault = FHIRStoreFaultTests

    /// Our create of 10 lands on 30 that another writer created after our read (200, not 201): the replaced copy
    /// is found in `_history` by our version id, numeric or opaque (Google), and put back.
    @Test(arguments: [false, true])
    func aCreateRaceRestoresTheNewerCopy(opaqueVersions: Bool) async throws {
        let double = try await FHIRDouble()
        try await double.set(["opaque_versions": opaqueVersions])
        let store = try await Fault.open(double)
        let newer = try Fault.mapped(version: 30)
        try await double.set(["interpose": [newer.resourceID: try Fault.json(newer)]])
        #expect(try await store.upsert([try Fault.mapped(version: 10)]) == [.stale])
        #expect(try await store.allVersions() == [newer.identity: 30])
        let kept = try #require(try await store.observation(for: newer.identity))
        if !opaqueVersions { #expect(kept.versionId == 3) }  // 1: theirs, 2: our create, 3: theirs restored
        #expect(try await store.upsert([try Fault.mapped(version: 10)]) == [.stale])
        await store.close()
    }

    /// A racing create of a lower version is simply replaced: our create counts as an update.
    @Test func aCreateRaceOverALowerCopyIsAnUpdate() async throws {
        let double = try await FHIRDouble()
        try await double.set(["opaque_versions": true])
        let store = try await Fault.open(double)
        let lower = try Fault.mapped(version: 3)
        try await double.set(["interpose": [lower.resourceID: try Fault.json(lower)]])
        #expect(try await store.upsert([try Fault.mapped(version: 10)]) == [.updated])
        #expect(try await store.allVersions() == [lower.identity: 10])
        await store.close()
    }

    /// Yet another writer comes in between our create and the restore (the restore's `If-Match` fails): the restore
    /// itself is retried over that copy while it is older than the one being restored; a re-decision would have
    /// left 20 and lost 30. A copy at least as new as the restored one is left alone.
    @Test(arguments: [(20, 30), (40, 40)])
    func aConflictDuringTheRestoreRetriesTheRestore(third: Int64, expected: Int64) async throws {
        let double = try await FHIRDouble()
        let store = try await Fault.open(double)
        let newer = try Fault.mapped(version: 30)
        let other = try Fault.mapped(version: third)
        try await double.set([
            "interpose": [newer.resourceID: [try Fault.json(newer), try Fault.json(other)]]
        ])
        #expect(try await store.upsert([try Fault.mapped(version: 10)]) == [.stale])
        #expect(try await store.allVersions() == [newer.identity: expected])
        #expect(try await double.stats()["conflicts"] == 1)
        await store.close()
    }

    /// A server that does not declare `history-instance` could never settle a racing create: the store refuses to
    /// open there (a configuration error), rather than run without the check.
    @Test func aServerWithoutHistoryIsAConfigurationError() async throws {
        let double = try await FHIRDouble()
        try await double.set(["no_history": true])
        let error = await #expect(throws: StoreError.self) { _ = try await Fault.open(double) }
        #expect(error?.code == .usage, "\(String(describing: error))")
        #expect(error?.message.contains("history-instance") == true, "\(String(describing: error))")
    }

    /// History that fails at run time (declared at start): our create of 10 replaced 30 and nothing can prove it.
    /// The record is refused (dead-lettered with the reason), never reported stored: a retry of the batch would read
    /// our own 10 back and call it `unchanged`, losing 30 silently. With history working the same race restores 30.
    @Test func aCreateRaceThatHistoryCannotSettleIsRefusedNeverReportedStored() async throws {
        let double = try await FHIRDouble()
        try await double.set(["opaque_versions": true])
        let store = try await Fault.open(double)
        try await double.set(["no_history": true])
        let newer = try Fault.mapped(version: 30)
        try await double.set(["interpose": [newer.resourceID: try Fault.json(newer)]])
        let results = try await store.upsert([try Fault.mapped(version: 10)])
        #expect(results.map(\.outcome) == [nil])
        let reason = try #require(results.first?.refusalReason)
        #expect(
            reason.contains(
                "created Observation/\(newer.resourceID) but could not verify that no newer copy was replaced"),
            "\(reason)")
        #expect(reason.contains("check the server's history"), "\(reason)")
        #expect(try await double.stats()["history_reads"] == FHIRObservationStore.historyAttempts)

        try await double.set(["no_history": false])
        let other = try Fault.mapped(day: 2, version: 30)
        try await double.set(["interpose": [other.resourceID: try Fault.json(other)]])
        #expect(try await store.upsert([try Fault.mapped(day: 2, version: 10)]) == [.stale])
        #expect(try await store.allVersions()[other.identity] == 30)
        // Without a race nothing needs proving: a create answered 201 is an insert.
        #expect(try await store.upsert([try Fault.mapped(day: 3, version: 10)]) == [.inserted])
        await store.close()
    }

    /// A `_history` that does not show our version yet (an index lagging the writes) is read again in place, with
    /// backoff: the third read finds ours and the newer copy it replaced is put back.
    @Test func aLaggingHistoryIsReadAgainUntilItShowsOurVersion() async throws {
        let double = try await FHIRDouble()
        let store = try await Fault.open(double)
        let newer = try Fault.mapped(version: 30)
        try await double.set(["history_lag": 2, "interpose": [newer.resourceID: try Fault.json(newer)]])
        #expect(try await store.upsert([try Fault.mapped(version: 10)]) == [.stale])
        #expect(try await store.allVersions() == [newer.identity: 30])
        #expect(try await double.stats()["history_reads"] == 3)
        await store.close()
    }

    /// A copy without our version tag (another system's, or written under another `--fhir-version-tag-system`) is
    /// never overwritten: that record is refused with the reason; the rest of the batch is stored.
    @Test func aCopyWithoutTheVersionTagIsRefusedNotOverwritten() async throws {
        let double = try await FHIRDouble()
        let other = try await Fault.open(double) { $0.versionTagSystem = "urn:example:another-system" }
        let foreign = try Fault.mapped(version: 50)
        #expect(try await other.upsert([foreign]) == [.inserted])
        let store = try await Fault.open(double)
        let batch = [try Fault.mapped(version: 60), try Fault.mapped(day: 2, version: 5)]
        let results = try await store.upsert(batch)
        #expect(results.map(\.outcome) == [nil, .inserted])
        let reason = try #require(results[0].refusalReason)
        #expect(reason.contains("no event version tag of system " + FHIRStoreConfiguration.defaultVersionTagSystem))
        #expect(try await other.allVersions() == [foreign.identity: 50])
        #expect(try await store.allVersions() == [batch[1].identity: 5])
        await other.close()
        await store.close()
    }

    /// A foreign copy created between our read and our create is put back, and the record refused.
    @Test func aRacingForeignCopyIsRestoredAndTheRecordRefused() async throws {
        let double = try await FHIRDouble()
        let store = try await Fault.open(double)
        let record = try Fault.mapped(version: 10)
        var foreign = try Fault.json(try Fault.mapped(version: 99))
        foreign["meta"] = ["tag": [["system": "urn:example:another-system", "code": "99"]]]
        try await double.set(["interpose": [record.resourceID: foreign]])
        let results = try await store.upsert([record])
        #expect(results.map(\.outcome) == [nil] && results[0].refusalReason?.contains("not overwritten") == true)
        #expect(try await store.allVersions().isEmpty)  // the server holds the foreign copy again
        let response = try await HTTPClient(HTTPClientConfiguration()).send(
            HTTPRequest(method: "GET", url: double.baseURL + "/Observation/" + record.resourceID))
        #expect(response.text.contains("urn:example:another-system"))
        await store.close()
    }

    /// Throttled entries inside a Bundle (no Retry-After possible) back off and are decided again.
    @Test func throttledBundleEntriesBackOffAndSucceed() async throws {
        let double = try await FHIRDouble()
        let store = try await Fault.open(double)
        try await double.set(["throttle_entries": 2])
        let started = ContinuousClock.now
        let batch = try (1...3).map { try Fault.mapped(day: $0, version: 5) }
        #expect(try await store.upsert(batch) == [.inserted, .inserted, .inserted])
        let elapsed = ContinuousClock.now - started
        #expect(elapsed >= .milliseconds(500), "\(elapsed)")  // a lower bound: the first backoff is 0.5–1 s
        #expect(try await double.stats()["throttled"] == 2)
        await store.close()
    }

    /// Entries throttled in every round use up the rounds: the error says so (429, "still throttled"), not 412.
    @Test func entriesThrottledInTheLastRoundAreReportedAsThrottled() async throws {
        let double = try await FHIRDouble()
        let store = try await Fault.open(double) { $0.conflictAttempts = 2 }
        try await double.set(["throttle_entries": 100])
        let error = await #expect(throws: StoreError.self) { try await store.upsert([try Fault.mapped(version: 5)]) }
        #expect(error?.code == .busy && error?.nativeCode == "429", "\(String(describing: error))")
        #expect(error?.message.contains("still throttled after 2 rounds") == true, "\(String(describing: error))")
        await store.close()
    }
}
