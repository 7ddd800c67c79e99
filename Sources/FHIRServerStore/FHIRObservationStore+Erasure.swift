import Essentials
import HTTPClient
import JSON
import StoreCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Erasure and consent withdrawal on a FHIR server (docs/PRIVACY.md). The ledger is on the server itself
/// (``FHIRErasureLedger``: `Basic` resources keyed by the person's pseudonym, and a state resource whose version is
/// the ledger's generation).
///
/// **What is guaranteed without a lock.** A FHIR server has no lock an erasure could take, so the store orders
/// instead: every read Bundle of a batch also reads the ledger's state, and a round writes only persons that state's
/// ledger does not refuse; an erasure writes its entries, then the state, then deletes. A write Bundle sent before
/// the state changed may still land after the first delete, so ``erase(_:)`` searches again once
/// ``FHIRStoreConfiguration/effectiveErasureSettle`` (at least the HTTP request timeout, by which such a Bundle was
/// answered or abandoned) has passed since the state was written, and deletes what it finds, up to
/// ``settleRounds`` times; what is still found then is reported as remaining (a rerun deletes it). A create race's
/// restore (FHIRObservationStore+CreateRace.swift) reads the state again first. Not covered: a server that applies
/// a request later than its client's timeout.
///
/// The server's access rules must let the workers read `Basic` (the ledger) and `storectl erase` write `Basic` and
/// delete Observations (and run the history purge); a worker refused the ledger read fails as `unauthorized`.
extension FHIRObservationStore: ObservationErasing {
    /// Searches for what a batch in flight at the erasure wrote, after the settle window.
    static let settleRounds = 3

    /// A `.pseudonym` subject (`--reapply-ledger`) is found by one search through every Observation this store
    /// wrote, hashing each patient (``persons(_:key:)``); one with no Observation then gets its entry only.
    /// - Throws: ``StoreError``: `usage` for a key other than the ledger's or the store's, or a `lift` of an erased
    ///   person; `connection`, `timeout`, `unauthorized`, `busy` or `query` when the server fails (a rerun
    ///   continues where this one stopped).
    public func erase(_ request: ErasureRequest) async throws -> ErasureReport {
        try checkOpen()
        let state = try await ledgerState()
        let entries = FHIRErasureLedger.ordered(try await ledgerEntries())
        let key = try ErasureGuard.checked(
            request.key, against: state.keyFingerprint ?? entries.lazy.compactMap(\.keyFingerprint).first)
        if let own = erasureGuard.erasureKey, own.fingerprint != key.fingerprint {
            throw StoreError(
                .usage,
                "the erasure key (fingerprint \(key.fingerprint)) is not the one this store's workers hash persons "
                    + "with (\(own.fingerprint))")
        }
        let patients = try await persons(request.subjects, key: key)
        let erased = Set(entries.filter { $0.entry.mode == .erase }.map(\.entry.pseudonym))
        if request.mode == .lift, let person = patients.first(where: { erased.contains($0.pseudonym) }) {
            throw StoreError(
                .usage,
                "person \(person.pseudonym.shortForm) is erased: an erasure cannot be lifted (a person who returns "
                    + "gets a new id)")
        }
        let statuses = ErasureStatus.statuses(entries.map { ($0.entry.pseudonym, $0.entry.mode) })
        let recording = try patients.filter {
            try (statuses[$0.pseudonym] ?? .none).needsEntry(request.mode)
        }.map(\.pseudonym)
        if request.dryRun { return try await dryRun(request.mode, patients) }

        // The entries, then the state: from then on every batch's read Bundle sees them.
        let now = RFC3339.string(Date())
        if state.generation == 0 { try await writeLedgerState(key) }
        var written: [PatientPseudonym: FHIRErasureLedger.Entry] = [:]
        for pseudonym in recording {
            let entry = FHIRErasureLedger.Entry(
                resourceID: FHIRErasureLedger.newResourceID(),
                entry: ErasureLedgerEntry(
                    sequence: 0, pseudonym: pseudonym, mode: request.mode, reference: request.reference,
                    requestedAt: now, completedAt: request.mode == .erase ? nil : now, deleted: ErasureCounts()),
                historyKept: 0, keyFingerprint: key.fingerprint)
            try await writeLedgerEntry(entry)
            written[pseudonym] = entry
        }
        try await writeLedgerState(key)
        let stateWritten = ContinuousClock.now
        guard request.mode == .erase else {
            return ErasureReport(
                subjects: patients.map {
                    ErasureReport.Subject(
                        pseudonym: $0.pseudonym, recorded: written[$0.pseudonym] != nil, deleted: ErasureCounts())
                })
        }

        // Delete, wait out the batches in flight, search again; then complete each person's erase entry.
        let deletions = try await deleteObservations(of: patients.map(\.patient), after: stateWritten)
        var report: [ErasureReport.Subject] = []
        for (person, deletion) in zip(patients, deletions) {
            let latest = entries.last { $0.entry.pseudonym == person.pseudonym && $0.entry.mode == .erase }
            guard var entry = written[person.pseudonym] ?? latest else { continue }
            entry.entry.deleted.observations += deletion.deleted
            entry.historyKept += deletion.historyKept
            let remaining = deletion.remaining(historyKept: entry.historyKept)
            entry.entry.completedAt = remaining.isEmpty ? (entry.entry.completedAt ?? RFC3339.string(Date())) : nil
            try await writeLedgerEntry(entry)
            report.append(
                ErasureReport.Subject(
                    pseudonym: person.pseudonym, recorded: written[person.pseudonym] != nil,
                    deleted: ErasureCounts(observations: deletion.deleted), remaining: remaining))
        }
        try await writeLedgerState(key)
        return ErasureReport(subjects: report)
    }

    public func erasureLedger() async throws -> [ErasureLedgerEntry] {
        try checkOpen()
        return FHIRErasureLedger.ordered(try await ledgerEntries()).map(\.entry)
    }

    public func refusedPseudonyms() async throws -> RefusedPersons {
        try checkOpen()
        let entries = FHIRErasureLedger.ordered(try await ledgerEntries())
        return RefusedPersons(
            pseudonyms: FHIRErasureLedger.refused(entries),
            keyFingerprint: entries.lazy.compactMap(\.keyFingerprint).first)
    }

    /// The version of the ledger's state resource (one read); 0 while the server has none (an empty ledger).
    public func ledgerGeneration() async throws -> Int64 {
        try checkOpen()
        return try await ledgerState().generation
    }

    // MARK: - The ledger on the server

    /// For each of `patients`, whether the ledger `ledger` is the state of refuses them (nil: none is); the refused
    /// set is read again when the generation changed.
    func refusedMask(_ patients: [String], ledger: FHIRErasureLedger.State) async throws -> [Bool]? {
        try await erasureGuard.refusedMask(patients, generation: ledger.generation) {
            // No state resource, no entries: the state is written before the first entry.
            ledger.generation == 0
                ? RefusedPersons(pseudonyms: [], keyFingerprint: nil) : try await self.refusedPseudonyms()
        }
    }

    /// Reads the state resource.
    func ledgerState() async throws -> FHIRErasureLedger.State {
        let response = try await rest.send(
            "GET", "Basic/" + FHIRErasureLedger.stateID, headers: [("Cache-Control", "no-cache")])
        return try Self.ledgerState(
            FHIRBundle.Entry(
                status: response.status, versionId: response.header("etag").map(FHIRBundle.versionId(fromETag:)),
                resource: JSONValue.anyObject(response.body), outcomeText: nil,
                outcomeSummary: FHIRRestClient.answerSummary(response)))
    }

    /// The state a read of the state resource answered (a Bundle entry, or a read's response as one).
    /// - Throws: ``StoreError``: `usage` when the state resource was deleted (a rerun of `storectl erase` writes it
    ///   again), `unauthorized`, `connection` or `query` for a failed read.
    static func ledgerState(_ answer: FHIRBundle.Entry) throws -> FHIRErasureLedger.State {
        let path = "Basic/" + FHIRErasureLedger.stateID
        switch answer.status {
        case 200..<300: return FHIRErasureLedger.state(answer.resource, versionId: answer.versionId)
        case 404: return FHIRErasureLedger.State(generation: 0)
        case 410:
            throw StoreError(
                .usage, nativeCode: "410",
                "the erasure ledger's state \(path) was deleted on the FHIR server: nothing is written until "
                    + "`storectl erase` (any rerun) writes it again")
        case 401, 403:
            throw StoreError(
                .unauthorized, nativeCode: String(answer.status),
                "GET \(path) refused: the store needs read access to Basic (the erasure ledger)")
        default:
            throw StoreError(
                answer.status >= 500 || answer.status == 429 ? .connection : .query,
                nativeCode: String(answer.status), "GET \(path): \(answer.status), \(answer.outcomeSummary)")
        }
    }

    /// Every entry, in no particular order.
    func ledgerEntries() async throws -> [FHIRErasureLedger.Entry] {
        try await searchResources(
            FHIRErasureLedger.entriesSearch, type: "Basic", headers: [("Cache-Control", "no-cache")]
        ).compactMap(FHIRErasureLedger.entry)
    }

    private func writeLedgerEntry(_ entry: FHIRErasureLedger.Entry) async throws {
        try await put("Basic/" + entry.resourceID, FHIRErasureLedger.resource(entry))
    }

    /// Rewrites the state resource: a new generation.
    private func writeLedgerState(_ key: ErasureKey) async throws {
        try await put(
            "Basic/" + FHIRErasureLedger.stateID,
            FHIRErasureLedger.stateResource(keyFingerprint: key.fingerprint, changedAt: RFC3339.string(Date())))
    }

    private func put(_ path: String, _ body: [UInt8]) async throws {
        let response = try await rest.send("PUT", path, body: body)
        guard (200..<300).contains(response.status) else {
            throw StoreError(
                .query, nativeCode: String(response.status),
                "PUT \(path) (erasure ledger): \(FHIRRestClient.answerSummary(response))")
        }
    }

    /// What an erasure would delete: the Observations each person has now.
    private func dryRun(_ mode: ErasureMode, _ patients: [(patient: String?, pseudonym: PatientPseudonym)])
        async throws -> ErasureReport
    {
        var subjects: [ErasureReport.Subject] = []
        for person in patients {
            let count = mode == .erase ? try await observationIDs(of: person.patient).count : 0
            subjects.append(
                ErasureReport.Subject(
                    pseudonym: person.pseudonym, recorded: false, deleted: ErasureCounts(observations: Int64(count))))
        }
        return ErasureReport(subjects: subjects)
    }
}
