import Essentials
import SQLiteClient
import StoreCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// `storectl export` on SQLite: one read transaction (a WAL snapshot), stepped through in chunks, and a
/// `last_updated` instant as the mark.
///
/// Writers are serialized by the write lock and stamp `last_updated` with SQLite's clock while they hold it. The
/// export takes that lock on a second connection for a moment: no writer is in progress, the read snapshot then
/// starts with every write committed, and the lock is held until the clock has passed the mark, so every later
/// write has a later stamp. A wall clock stepped back by more than the gap between two exports would break that;
/// docs/EXPORT.md says so.
extension SQLiteObservationStore: ObservationExporting {
    static let markKind = "sqlite-last-updated"

    public func exportObservations(
        since: ExportMark?, chunkSize: Int, _ chunk: @escaping @Sendable ([StoredObservation]) throws -> Void,
        deleted: @escaping @Sendable ([String]) throws -> Void
    ) async throws -> ExportMark {
        let previous = try since.map(Self.instant(of:))
        let (path, busyTimeout, chunkSize) = (path, busyTimeoutMilliseconds, max(1, chunkSize))
        return try await withConnection { connection in
            try connection.execute("BEGIN DEFERRED")
            do {
                let mark = try Self.markWithWritersHeld(path: path, busyTimeout: busyTimeout) {
                    _ = try connection.statement("SELECT count(*) FROM schema_version").query { $0.integer(0) }
                }
                let select = try connection.statement(
                    Self.selectColumns + (previous == nil ? "" : " WHERE last_updated > ?"))
                try select.bind(previous.map { [.text($0)] } ?? [])
                var rows: [StoredObservation] = []
                rows.reserveCapacity(chunkSize)
                while try select.step() {
                    rows.append(Self.stored(select))
                    if rows.count == chunkSize {
                        try chunk(rows)
                        rows.removeAll(keepingCapacity: true)
                    }
                }
                if !rows.isEmpty { try chunk(rows) }
                if let previous {
                    // Erasures stamp `erased_at` under the write lock, as writers stamp `last_updated`.
                    let ids = try connection.statement(
                        "SELECT resource_id FROM erased_resource WHERE erased_at > ? ORDER BY resource_id"
                    ).query([.text(previous)]) { $0.text(0) }
                    for start in stride(from: 0, to: ids.count, by: chunkSize) {
                        try deleted(Array(ids[start..<min(start + chunkSize, ids.count)]))
                    }
                }
                try connection.execute("COMMIT")
                return ExportMark(Self.markKind + ":" + mark)
            } catch {
                try? connection.execute("ROLLBACK")
                throw error
            }
        }
    }

    /// Holds the write lock on a second connection while `startReading` starts the read snapshot, reads the mark
    /// (SQLite's clock, or the latest stored stamp if that is later), and keeps the lock until the clock has passed
    /// the mark.
    private static func markWithWritersHeld(
        path: String, busyTimeout: Int32, startReading: () throws -> Void
    ) throws -> String {
        let lock = try SQLiteConnection(path: path, busyTimeoutMilliseconds: busyTimeout)
        try lock.execute("BEGIN IMMEDIATE")
        defer { try? lock.execute("ROLLBACK") }
        try startReading()
        let now = try lock.statement("SELECT \(clock)").query { $0.text(0) }[0]
        let latest = try lock.statement("SELECT max(last_updated) FROM observation").query { $0.bytes(0) }[0]
        let mark = max(now, latest.map { String(decoding: $0, as: UTF8.self) } ?? now)
        let deadline = ContinuousClock.now + .seconds(1)
        while try lock.statement("SELECT \(clock) > ?").query([.text(mark)], row: { $0.integer(0) })[0] == 0 {
            guard ContinuousClock.now < deadline else { break }  // a stored stamp ahead of the clock: see docs
            usleep(1000)
        }
        return mark
    }

    private static let clock = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"

    private static func instant(of mark: ExportMark) throws -> String {
        // Compared as text with the column: exactly its form, `2026-10-02T06:15:03.120Z`.
        let form = Array("dddd-dd-ddTdd:dd:dd.dddZ".utf8)
        guard let text = mark.value(of: markKind).map(String.init), text.utf8.count == form.count,
            zip(text.utf8, form).allSatisfy({ $1 == UInt8(ascii: "d") ? (0x30...0x39).contains($0) : $0 == $1 })
        else {
            throw StoreError(
                .usage, "the mark '\(mark)' is not a SQLite export's (\(markKind):YYYY-MM-DDTHH:MM:SS.mmmZ)")
        }
        return text
    }
}
