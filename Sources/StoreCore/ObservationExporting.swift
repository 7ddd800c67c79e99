/// Bulk export of stored Observations (`storectl export`): one consistent snapshot, streamed in chunks, and a mark
/// from which the next export takes only what changed.
public protocol ObservationExporting: Sendable {
    /// Reads every stored Observation (with `since`: every one written after that earlier export's snapshot, by an
    /// insert, a replace, a retraction marking it `entered-in-error`, finalize or `storectl migrate`) from one
    /// consistent snapshot, and hands them to `chunk` in chunks of at most `chunkSize`, in the order the store reads
    /// them (no sort: PostgreSQL month by month, SQLite by row id), on the store's queue. Memory holds one chunk,
    /// however large the store.
    /// - Returns: the mark of the snapshot read; an export `since` it holds exactly what changed after this one.
    /// - Throws: ``StoreError`` (`usage` for a mark of another kind of store), or what `chunk` throws.
    ///
    /// With `since`, `deleted` gets (in chunks, from the same snapshot) the ids of the Observations erased after that
    /// export's snapshot (`storectl erase`, docs/PRIVACY.md): a platform loaded from the exports deletes them too.
    func exportObservations(
        since: ExportMark?, chunkSize: Int, _ chunk: @escaping @Sendable ([StoredObservation]) throws -> Void,
        deleted: @escaping @Sendable ([String]) throws -> Void
    ) async throws -> ExportMark
}

extension ObservationExporting {
    /// ``exportObservations(since:chunkSize:_:deleted:)`` without the erased ids.
    public func exportObservations(
        since: ExportMark?, chunkSize: Int, _ chunk: @escaping @Sendable ([StoredObservation]) throws -> Void
    ) async throws -> ExportMark {
        try await exportObservations(since: since, chunkSize: chunkSize, chunk, deleted: { _ in })
    }
}

/// Where an export's snapshot stands: the text a manifest keeps as its high-water mark.
///
/// PostgreSQL: `postgres-snapshot:XMIN:XMAX:XIP,…` (`pg_current_snapshot()` of the export's transaction; a row
/// changed later has a writer not visible in it). SQLite: `sqlite-last-updated:INSTANT` (writers are serialized and
/// stamp `last_updated` under the write lock, so a row changed later has a later stamp).
public struct ExportMark: Sendable, Hashable, CustomStringConvertible {
    /// The mark as a manifest keeps it.
    public let text: String

    /// A mark read back from a manifest; its form is checked by the store it is given to.
    public init(_ text: String) { self.text = text }

    public var description: String { text }

    /// The value of a mark of `kind` (the text after `kind:`), or nil for a mark of another kind.
    package func value(of kind: String) -> Substring? {
        text.hasPrefix(kind + ":") ? text.dropFirst(kind.count + 1) : nil
    }
}
