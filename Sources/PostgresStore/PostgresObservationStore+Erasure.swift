import PostgresClient
import StoreCore

/// Erasure and consent withdrawal on PostgreSQL (``PostgresErasure``, docs/PRIVACY.md).
extension PostgresObservationStore: ObservationErasing {
    public func erase(_ request: ErasureRequest) async throws -> ErasureReport {
        try await withConnection { connection in
            let subjects = try PostgresErasure.resolve(request, on: connection)
            if request.dryRun {
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
            let recorded = try PostgresErasure.record(subjects, request, on: connection)
            let deleted =
                try request.mode == .erase
                ? subjects.map { try PostgresErasure.delete($0, on: connection) }
                : subjects.map { _ in ErasureCounts() }
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
