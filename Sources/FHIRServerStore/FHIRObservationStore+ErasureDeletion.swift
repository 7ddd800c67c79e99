import DailyValueContract
import Essentials
import HTTPClient
import StoreCore

/// The deleting half of an erasure on a FHIR server: search the person's Observations, `DELETE` them in `batch`
/// Bundles, purge their history (``FHIRHistoryPurge``), and search again after the settle window.
extension FHIRObservationStore {
    /// What an erasure deleted of one person.
    struct Deletion {
        /// Observations deleted now.
        var deleted: Int64 = 0
        /// Of those, the ones whose history the server keeps (no purge, or a purge that failed).
        var historyKept: Int64 = 0
        /// Why purges failed (status and issue codes, never a body's text).
        var purgeFailures: [String] = []
        /// Observations still found after the last search.
        var stillFound = 0

        /// What remains of the person, for the report; `historyKept` is the entry's total, reruns included.
        func remaining(historyKept total: Int64) -> [String] {
            var remaining: [String] = []
            if stillFound > 0 {
                remaining.append(
                    "\(stillFound) Observations were written again while the erasure ran (a batch in flight at "
                        + "its start): rerun to delete them")
            }
            if total > 0 {
                remaining.append(
                    "the FHIR server keeps the history of \(total) deleted Observations of this person "
                        + (purgeFailures.isEmpty
                            ? "(it has no history purge: delete them on the server, e.g. from its database)"
                            : "(the purge failed: \(purgeFailures.prefix(3).joined(separator: "; ")))"))
            }
            return remaining
        }
    }

    /// The history purge the store uses on its server.
    var historyPurge: FHIRHistoryPurge {
        configuration.historyPurge ?? FHIRHistoryPurge.detected(software: serverCapabilities.software)
    }

    /// The persons `subjects` name, each once, with their patient ids: a `.pseudonym` subject (`--reapply-ledger`
    /// after a backup was restored) is found by hashing the patient of every Observation this store wrote (one
    /// search through all of them, `_elements=identifier`); nil when none of them is the person's.
    func persons(_ subjects: [ErasureRequest.Subject], key: ErasureKey) async throws
        -> [(patient: String?, pseudonym: PatientPseudonym)]
    {
        let wanted = Set(subjects.compactMap { if case .pseudonym(let pseudonym) = $0 { pseudonym } else { nil } })
        var found: [PatientPseudonym: String] = [:]
        if !wanted.isEmpty {
            var seen: Set<String> = []
            let tag = Self.queryEncoded(configuration.versionTagSystem + "|")
            for resource in try await searchResources(
                "Observation?_tag=\(tag)&_elements=identifier&_count=500", type: "Observation",
                headers: [("Cache-Control", "no-cache")])
            {
                let identifiers = resource["identifier"] as? [[String: Any]] ?? []
                guard
                    let value = identifiers.first(where: {
                        $0["system"] as? String == configuration.identifierSystem
                    })?["value"] as? String,
                    let patient = FHIRCopy.identity(fromKey: value)?.patient, seen.insert(patient).inserted
                else { continue }
                let pseudonym = key.pseudonym(of: patient)
                if wanted.contains(pseudonym) { found[pseudonym] = patient }
            }
        }
        var persons: [(patient: String?, pseudonym: PatientPseudonym)] = []
        for subject in subjects {
            let person: (patient: String?, pseudonym: PatientPseudonym) =
                switch subject {
                case .patient(let patient): (patient, key.pseudonym(of: patient))
                case .pseudonym(let pseudonym): (found[pseudonym], pseudonym)
                }
            if !persons.contains(where: { $0.pseudonym == person.pseudonym }) { persons.append(person) }
        }
        return persons
    }

    /// Deletes every Observation of each of `patients` now, then again after the settle window that starts at
    /// `stateWritten` (when the ledger's new state was written), ``settleRounds`` searches at most.
    func deleteObservations(of patients: [String?], after stateWritten: ContinuousClock.Instant) async throws
        -> [Deletion]
    {
        var deletions = Array(repeating: Deletion(), count: patients.count)
        for (position, patient) in patients.enumerated() {
            try await deleteAndPurge(try await observationIDs(of: patient), into: &deletions[position])
        }
        try await Task.sleep(until: stateWritten + configuration.effectiveErasureSettle, clock: .continuous)
        for round in 1...Self.settleRounds {
            var found = false
            for (position, patient) in patients.enumerated() {
                let ids = try await observationIDs(of: patient)
                deletions[position].stillFound = round == Self.settleRounds ? ids.count : 0
                guard !ids.isEmpty, round < Self.settleRounds else { continue }
                found = true
                try await deleteAndPurge(ids, into: &deletions[position])
            }
            if !found { break }
        }
        return deletions
    }

    /// The ids of `patient`'s Observations written by this store (those with its version tag): every page, never
    /// from a cache.
    func observationIDs(of patient: String?) async throws -> [String] {
        guard let patient else { return [] }
        let subject = Self.queryEncoded("Patient/" + patient)
        let tag = Self.queryEncoded(configuration.versionTagSystem + "|")
        return try await searchResources(
            "Observation?subject=\(subject)&_tag=\(tag)&_elements=id&_count=500", type: "Observation",
            headers: [("Cache-Control", "no-cache")]
        ).compactMap { $0["id"] as? String }
    }

    /// Deletes `ids` (``FHIRStoreConfiguration/batchSize`` per Bundle) and purges each one's history.
    private func deleteAndPurge(_ ids: [String], into deletion: inout Deletion) async throws {
        for start in stride(from: 0, to: ids.count, by: configuration.batchSize) {
            let chunk = Array(ids[start..<min(start + configuration.batchSize, ids.count)])
            let response = try await rest.send("POST", "", body: FHIRBundle.deletes(chunk))
            for (id, entry) in zip(chunk, try FHIRBundle.entries(of: response, expected: chunk.count)) {
                switch entry.status {
                case 200..<300, 404, 410: deletion.deleted += 1  // gone (404/410: another erasure was first)
                case 401, 403:
                    throw StoreError(
                        .unauthorized, nativeCode: String(entry.status),
                        "DELETE Observation/\(id) refused: the erasure needs delete access to Observation")
                default:
                    throw StoreError(
                        entry.status >= 500 || entry.status == 429 ? .connection : .query,
                        nativeCode: String(entry.status),
                        "DELETE Observation/\(id): \(entry.status), \(entry.outcomeSummary)")
                }
                if let failure = try await purgeHistory(of: id) {
                    deletion.historyKept += 1
                    if let failure, deletion.purgeFailures.count < 3 { deletion.purgeFailures.append(failure) }
                }
            }
        }
    }

    /// Purges the history of the deleted `Observation/{id}`: nil when done; `.some(nil)` when the server has no
    /// purge; `.some(reason)` when the purge failed.
    private func purgeHistory(of id: String) async throws -> String?? {
        guard let request = historyPurge.request(id) else { return .some(nil) }
        do {
            let response = try await rest.send(request.method, request.path, body: request.body)
            if (200..<300).contains(response.status) || response.status == 404 { return nil }
            return .some("\(historyPurge.rawValue): \(FHIRRestClient.answerSummary(response))")
        } catch let error as StoreError where error.code == .unauthorized || error.code == .query {
            return .some("\(historyPurge.rawValue): \(error)")
        }
    }
}
