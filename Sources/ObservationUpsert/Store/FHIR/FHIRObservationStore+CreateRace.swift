import DailyValueContract
import Foundation
import HTTPClient

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
    /// - Throws: ``StoreError`` `busy` when the server cannot prove what was replaced (no usable `_history`, no
    ///   version id on the answer, ours not in the history page): the batch is retried rather than a success
    ///   reported for a write that may have overwritten newer data.
    func settleCreate(_ record: ObservationRecord, _ entry: FHIRBundle.Entry) async throws -> CreateResult {
        guard entry.status != 201 else { return .decided(.inserted) }
        let id = record.resourceID
        guard let ours = entry.versionId, !ours.isEmpty else {
            throw unproven(id, "the server answered \(entry.status) without a version id")
        }
        guard ours != "1" else { return .decided(.inserted) }  // nothing precedes a first version
        let response = try await rest.send("GET", "Observation/\(id)/_history?_count=\(Self.historyPage)")
        guard (200..<300).contains(response.status),
            let bundle = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
            bundle["resourceType"] as? String == "Bundle"
        else {
            throw unproven(id, "GET _history answered \(response.status): \(FHIRRestClient.outcomeText(response))")
        }
        // Newest first (FHIR R4 `history`); an entry without a resource is a deletion.
        let entries = bundle["entry"] as? [[String: Any]] ?? []
        let resources = entries.map { $0["resource"] as? [String: Any] }
        guard let position = resources.firstIndex(where: { Self.versionId(of: $0) == ours }) else {
            throw unproven(id, "our version \(ours) is not on the first page of its _history")
        }
        guard position + 1 < resources.count else {
            let more = (bundle["link"] as? [[String: Any]] ?? []).contains { $0["relation"] as? String == "next" }
            if more { throw unproven(id, "the version ours replaced is beyond the first page of its _history") }
            return .decided(.inserted)  // ours is the first version: a create after all
        }
        guard let replacedResource = resources[position + 1] else { return .decided(.inserted) }  // a deletion
        guard let replaced = copy(replacedResource) else {
            throw unproven(id, "the replaced version is not a readable Observation")
        }
        guard let version = replaced.eventVersion else {
            try await restore(replacedResource, replacing: ours, of: record)
            return .refused(Self.foreignCopyReason(id, versionTagSystem: configuration.versionTagSystem))
        }
        guard version > record.version else { return .decided(version == record.version ? .unchanged : .updated) }
        try await restore(replacedResource, replacing: ours, of: record)
        return .decided(.stale)
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
        let bytes = Array(try JSONSerialization.data(withJSONObject: body, options: [.withoutEscapingSlashes]))
        let target = copy(resource)?.eventVersion ?? .max
        var ifMatch: String? = versionId
        for _ in 0..<configuration.conflictAttempts {
            let answer = try await rest.send("PUT", "Observation/\(id)", body: bytes, ifMatch: ifMatch)
            if (200..<300).contains(answer.status) { return }
            guard [409, 412].contains(answer.status) else {
                throw StoreError(
                    .query, nativeCode: String(answer.status),
                    "restoring Observation/\(id) after a create race: \(FHIRRestClient.outcomeText(answer))")
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

    private static func versionId(of resource: [String: Any]?) -> String? {
        (resource?["meta"] as? [String: Any])?["versionId"] as? String
    }

    private func unproven(_ id: String, _ why: String) -> StoreError {
        StoreError(
            .busy,
            "a create of Observation/\(id) may have replaced another writer's copy and the server cannot prove "
                + "which: \(why); the batch is retried")
    }
}
