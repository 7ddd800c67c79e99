import DailyValueContract
import Essentials
import HTTPClient
import JSON
import ObservationMapping
import StoreCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension FHIRObservationStore {
    /// How a write meant to create a record ended: decided, or refused (the record is dead-lettered).
    enum CreateResult: Equatable {
        case decided(UpsertOutcome)
        case refused(String)
    }

    /// Settles a PUT meant to create `record` (no `If-Match`: the read found no copy). A 201 is a create. A 200 may
    /// have replaced a copy another writer made after our read: the instance's `_history` names the version ours
    /// replaced (found by our version id, so opaque ids work too); a newer or foreign copy is put back
    /// (``restore(_:replacing:of:)``) and the record is `stale` or refused.
    ///
    /// Only this call knows our version id, so a `_history` that cannot prove what ours replaced (failing, or not
    /// showing ours yet) is read again here, ``historyAttempts`` times with backoff. Still unproven, or a newer copy
    /// that cannot be put back, the record is refused (dead-lettered with ``unverifiedReason(_:_:)``), never
    /// reported stored: a retry of the batch would read our own copy back and call it `unchanged`.
    func settleCreate(_ record: ObservationRecord, _ entry: FHIRBundle.Entry) async throws -> CreateResult {
        guard entry.status != 201 else { return .decided(.inserted) }
        let id = record.resourceID
        guard let ours = entry.versionId, !ours.isEmpty else {
            return .refused(Self.unverifiedReason(id, "the server answered \(entry.status) without a version id"))
        }
        guard ours != "1" else { return .decided(.inserted) }  // nothing precedes a first version
        var backoff = Backoff(initial: .milliseconds(250), maximum: .seconds(2))
        var why = ""
        for attempt in 1...Self.historyAttempts {
            if attempt > 1 { try await Task.sleep(for: backoff.next()) }
            let replaced: [String: Any]?
            do {
                switch try await replacedVersion(of: id, ours: ours) {
                case .unproven(let reason):
                    why = reason
                    continue
                case .proven(let resource): replaced = resource
                }
            } catch let error as StoreError {
                why = "GET _history failed: \(error)"
                continue
            }
            guard let replaced else { return .decided(.inserted) }  // the first version, or over a deletion
            let version = copy(replaced)?.eventVersion
            if let version, version <= record.version {
                return .decided(version == record.version ? .unchanged : .updated)
            }
            // Not over a person erased since the batch's read: the erasure deletes what we wrote (its settle
            // window); a restore could land after it.
            if try await refusedMask([record.identity.patient], ledger: try await ledgerState())?.first == true {
                return .decided(.erased)
            }
            do { try await restore(replaced, replacing: ours, of: record) } catch let error as StoreError {
                return .refused(Self.unrestoredReason(id, replaced: version, error))
            }
            guard version != nil else {
                return .refused(Self.foreignCopyReason(id, versionTagSystem: configuration.versionTagSystem))
            }
            return .decided(.stale)
        }
        return .refused(Self.unverifiedReason(id, why))
    }

    /// What `_history` says our create (version `ours`) replaced.
    private enum Replaced {
        /// The replaced version; nil when ours is the first or replaced a deletion.
        case proven([String: Any]?)
        case unproven(String)
    }

    /// Reads the first page of `id`'s `_history` (newest first, FHIR R4) and finds the version after `ours`.
    /// - Throws: ``StoreError`` when the server cannot be asked.
    private func replacedVersion(of id: String, ours: String) async throws -> Replaced {
        let response = try await rest.send("GET", "Observation/\(id)/_history?_count=\(Self.historyPage)")
        guard (200..<300).contains(response.status),
            let bundle = JSONValue.anyObject(response.body),
            bundle["resourceType"] as? String == "Bundle"
        else {
            return .unproven("GET _history answered \(FHIRRestClient.answerSummary(response))")
        }
        // An entry without a resource is a deletion.
        let resources = (bundle["entry"] as? [[String: Any]] ?? []).map { $0["resource"] as? [String: Any] }
        guard let position = resources.firstIndex(where: { Self.versionId(of: $0) == ours }) else {
            return .unproven("our version \(ours) is not (yet) on the first page of its _history")
        }
        guard position + 1 < resources.count else {
            let more = (bundle["link"] as? [[String: Any]] ?? []).contains { $0["relation"] as? String == "next" }
            return more ? .unproven("the version ours replaced is beyond the first page of its _history") : .proven(nil)
        }
        guard let replaced = resources[position + 1] else { return .proven(nil) }
        guard copy(replaced) != nil else { return .unproven("the replaced version is not a readable Observation") }
        return .proven(replaced)
    }

    /// Puts `resource` (the copy our create replaced) back over `versionId`. A 409/412 means yet another writer
    /// came in: the current copy is read and the restore retried over it, unless it already holds the restored
    /// event version or a higher one (a copy without the version tag counts as highest: it is never overwritten).
    /// - Throws: ``StoreError`` `busy` after ``FHIRStoreConfiguration/conflictAttempts`` conflicts.
    private func restore(_ resource: [String: Any], replacing versionId: String, of record: ObservationRecord)
        async throws
    {
        let id = record.resourceID
        var body = resource
        if var meta = body["meta"] as? [String: Any] {
            meta["versionId"] = nil
            meta["lastUpdated"] = nil
            body["meta"] = meta
        }
        guard let bytes = JSONValue(any: body)?.serialized() else {
            throw StoreError(.query, "the stored Observation \(id) cannot be written back as JSON")
        }
        let target = copy(resource)?.eventVersion ?? .max
        var ifMatch: String? = versionId
        for _ in 0..<configuration.conflictAttempts {
            let answer = try await rest.send("PUT", "Observation/\(id)", body: bytes, ifMatch: ifMatch)
            if (200..<300).contains(answer.status) { return }
            guard [409, 412].contains(answer.status) else {
                throw StoreError(
                    .query, nativeCode: String(answer.status),
                    "restoring Observation/\(id) after a create race: \(FHIRRestClient.answerSummary(answer))")
            }
            guard let current = try await currentCopies([id])[id] else {
                ifMatch = nil  // deleted meanwhile: put it back as a create
                continue
            }
            if (current.eventVersion ?? .max) >= target { return }
            ifMatch = current.versionId
        }
        throw StoreError(
            .busy, nativeCode: "412",
            "restoring Observation/\(id) after a create race still conflicted after "
                + "\(configuration.conflictAttempts) attempts")
    }

    /// Why a record is refused when the server's copy has no event version tag of ours.
    static func foreignCopyReason(_ id: String, versionTagSystem: String) -> String {
        "the FHIR server's Observation/\(id) carries no event version tag of system \(versionTagSystem) (written "
            + "by another system, or the tag system was changed): it is not overwritten"
    }

    /// Versions one `_history` read asks for; ours and the one it replaced are the newest unless many writers
    /// came in between.
    static let historyPage = 20
    /// `_history` reads per racing create before the record is refused (backoff 0.25 s doubling, jittered: at most
    /// 3.75 s of waiting).
    package static let historyAttempts = 5

    private static func versionId(of resource: [String: Any]?) -> String? {
        (resource?["meta"] as? [String: Any])?["versionId"] as? String
    }

    /// Why a record whose create may have overwritten a newer copy is refused.
    /// Our create replaced a newer copy and putting it back failed: the server now holds the older value.
    static func unrestoredReason(_ id: String, replaced version: Int64?, _ error: StoreError) -> String {
        "created Observation/\(id) over a newer copy (event version \(version.map(String.init) ?? "unknown")) and "
            + "could not restore it (\(error)); the server holds the older value: restore the previous version "
            + "from the server's history of Observation/\(id)"
    }

    static func unverifiedReason(_ id: String, _ why: String) -> String {
        "created Observation/\(id) but could not verify that no newer copy was replaced (\(why)); check the "
            + "server's history of Observation/\(id)"
    }
}
