import SQLiteClient
import StoreCore

/// Erasure and consent withdrawal on SQLite (``SQLiteErasure``, docs/PRIVACY.md).
extension SQLiteObservationStore: ObservationErasing {
    public func erase(_ request: ErasureRequest) async throws -> ErasureReport {
        try await withConnection { connection in
            if request.dryRun {
                let subjects = try SQLiteErasure.resolve(request, on: connection)
                _ = try ErasureGuard.checked(request.key, against: try SQLiteErasure.fingerprint(on: connection))
                return ErasureReport(
                    subjects: try subjects.map { subject in
                        let counts =
                            try request.mode == .erase
                            ? subject.patient.map { try SQLiteErasure.counts(of: $0, on: connection) } : nil
                        return ErasureReport.Subject(
                            pseudonym: subject.pseudonym, recorded: false, deleted: counts ?? ErasureCounts())
                    })
            }
            let recorded = try SQLiteErasure.record(
                request.subjects.map { SQLiteErasure.Resolved(pseudonym: $0.pseudonym(with: request.key)) }, request,
                on: connection)
            // Resolved after the entries are written: from then on no batch writes these persons, so a
            // pseudonym-only subject (a re-applied ledger) is matched to every row of theirs there will be.
            let subjects = try SQLiteErasure.resolve(request, on: connection)
            guard request.mode == .erase else {
                return ErasureReport(
                    subjects: zip(subjects, recorded).map {
                        ErasureReport.Subject(pseudonym: $0.pseudonym, recorded: $1, deleted: ErasureCounts())
                    })
            }
            let deleted = try subjects.map { try SQLiteErasure.delete($0, on: connection) }
            return ErasureReport(
                subjects: zip(subjects, zip(recorded, deleted)).map {
                    ErasureReport.Subject(pseudonym: $0.pseudonym, recorded: $1.0, deleted: $1.1)
                },
                remaining: SQLiteErasure.truncateWAL(on: connection))
        }
    }

    public func erasureLedger() async throws -> [ErasureLedgerEntry] {
        try await withConnection { try SQLiteErasure.ledger(on: $0) }
    }

    public func refusedPseudonyms() async throws -> RefusedPersons {
        try await withConnection { try SQLiteErasure.refused(on: $0) }
    }

    public func ledgerGeneration() async throws -> Int64 {
        try await withConnection { try SQLiteErasure.generation(on: $0) }
    }
}
