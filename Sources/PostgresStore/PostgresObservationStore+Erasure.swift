import PostgresClient
import StoreCore

/// Erasure and consent withdrawal on PostgreSQL (``PostgresErasure``, docs/PRIVACY.md).
extension PostgresObservationStore: ObservationErasing {
    public func erase(_ request: ErasureRequest) async throws -> ErasureReport {
        try await withConnection { connection in
            if request.dryRun {
                let subjects = try PostgresErasure.resolve(request, on: connection)
                _ = try ErasureGuard.checked(request.key, against: try PostgresErasure.fingerprint(on: connection))
                return ErasureReport(
                    subjects: try subjects.map { subject in
                        let counts =
                            try request.mode == .erase
                            ? subject.patient.map { try PostgresErasure.counts(of: $0, on: connection) } : nil
                        return ErasureReport.Subject(
                            pseudonym: subject.pseudonym, recorded: false, deleted: counts ?? ErasureCounts())
                    })
            }
            let recorded = try PostgresErasure.record(
                request.subjects.map { PostgresErasure.Resolved(pseudonym: $0.pseudonym(with: request.key)) }, request,
                on: connection)
            // Resolved after the entries are written: from then on no batch writes these persons, so a
            // pseudonym-only subject (a re-applied ledger) is matched to every row of theirs there will be.
            let subjects = try PostgresErasure.resolve(request, on: connection)
            let deleted =
                try request.mode == .erase
                ? subjects.map { try PostgresErasure.delete($0, on: connection) }
                : subjects.map { _ in ErasureCounts() }
            if deleted.contains(where: { $0 != ErasureCounts() }) {
                try PostgresErasure.refreshStatistics(on: connection)
            }
            return ErasureReport(
                subjects: zip(subjects, zip(recorded, deleted)).map {
                    ErasureReport.Subject(pseudonym: $0.pseudonym, recorded: $1.0, deleted: $1.1)
                })
        }
    }

    public func erasureLedger() async throws -> [ErasureLedgerEntry] {
        try await withConnection { try PostgresErasure.ledger(on: $0) }
    }

    public func refusedPseudonyms() async throws -> RefusedPersons {
        try await withConnection { try PostgresErasure.refused(on: $0) }
    }

    public func ledgerGeneration() async throws -> Int64 {
        try await withConnection { try PostgresErasure.generation(on: $0) }
    }
}
