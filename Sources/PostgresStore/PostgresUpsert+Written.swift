import DailyValueContract
import ObservationMapping
import PostgresClient
import StoreCore

extension PostgresUpsert {
    /// For each of `winners` (in the order they were bound: sorted by identity), the outcome of the upsert's
    /// RETURNING row for it (`patient`, `metric`, `day`, inserted?), or nil when it wrote no row (the day holds a
    /// version at least as high).
    ///
    /// The statement writes in identity order (`COLLATE "C"`: byte order, which is Swift's `String` order for the
    /// contract's ASCII ids) and returns each row as it writes it, so rows are first matched to winners by walking
    /// both in that order and comparing bytes in place. Rows in any other order (e.g. non-ASCII text in a test's
    /// records) are matched by identity instead: correct either way, and no strings or hashes in the usual case.
    static func writtenOutcomes(_ rows: PostgresResult, winners: [ObservationRecord]) -> [UpsertOutcome?] {
        matchedInOrder(rows, winners) ?? matchedByIdentity(rows, winners)
    }

    private static func outcome(_ rows: PostgresResult, _ row: Int) -> UpsertOutcome {
        rows.value(row, 3, equals: "t") ? .inserted : .updated
    }

    /// nil when a row does not come after the previous row's winner.
    private static func matchedInOrder(_ rows: PostgresResult, _ winners: [ObservationRecord]) -> [UpsertOutcome?]? {
        var outcomes = [UpsertOutcome?](repeating: nil, count: winners.count)
        var next = 0
        for row in 0..<rows.rowCount {
            while next < winners.count && !isRow(row, of: rows, winners[next].identity) { next += 1 }
            guard next < winners.count else { return nil }
            outcomes[next] = outcome(rows, row)
            next += 1
        }
        return outcomes
    }

    private static func isRow(_ row: Int, of rows: PostgresResult, _ identity: ObservationIdentity) -> Bool {
        rows.value(row, 0, equals: identity.patient) && rows.value(row, 1, equals: identity.metric)
            && rows.value(row, 2, equals: identity.day)
    }

    private static func matchedByIdentity(_ rows: PostgresResult, _ winners: [ObservationRecord]) -> [UpsertOutcome?] {
        var written: [ObservationIdentity: UpsertOutcome] = [:]
        written.reserveCapacity(rows.rowCount)
        for row in 0..<rows.rowCount {
            let identity = ObservationIdentity(
                patient: rows.text(row, 0), metric: rows.text(row, 1), day: rows.text(row, 2))
            written[identity] = outcome(rows, row)
        }
        return winners.map { written[$0.identity] }
    }
}
