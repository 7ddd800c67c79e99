import DocumentCompression
import Essentials
import ObservationMapping
import SQLiteClient
import StoreCore

extension SQLiteObservationStore: DocumentMigrating {
    /// Batch by batch in key order, each batch one short write transaction (`BEGIN IMMEDIATE`): up to `batchSize`
    /// rows of the older shape (`resource` text set) are read as the store reads them today, cut into a document
    /// and facts that read back as the same bytes (``StoredDocument/fromResourceText(_:metric:versionId:lastUpdated:status:)``)
    /// and written with `resource` emptied; a row whose text would not read back the same is kept as it is (and
    /// counted). SQLite has one write lock: a batch waits for a worker's batch to commit (up to the busy timeout)
    /// and a worker waits for one migration batch at most, so no row is skipped. `version`, `version_id`,
    /// `last_updated` and `status` stay as they are; the clinical value text becomes its digest.
    public func migrateDocuments(batchSize: Int, progress: @escaping @Sendable (DocumentMigrationProgress) -> Void)
        async throws -> DocumentMigrationProgress
    {
        let codecs = codecs
        return try await withConnection { connection in
            let count = try connection.statement(Self.oldShapeCountSQL)
            var done = DocumentMigrationProgress(total: Int(try count.query { $0.integer(0) }[0]))
            var last: [SQLiteValue] = [.text(""), .text(""), .text("")]
            while true {
                let (read, rewritten, next) = try connection.transaction {
                    let rows = try connection.statement(Self.oldShapeBatchSQL).query(
                        last + [.integer(Int64(batchSize))], row: OldShapeRow.init)
                    var rewritten = 0
                    for row in rows {
                        guard
                            let shaped = StoredDocument.fromResourceText(
                                row.resource, metric: row.metric, versionId: row.versionId,
                                lastUpdated: row.lastUpdated, status: row.status)
                        else { continue }
                        let facts = shaped.facts
                        let document = codecs.compressor.compress(shaped.parts.map { shaped.content[$0] })
                        try connection.statement(Self.rewriteSQL).run(
                            row.key + [
                                .blob(document), row.clinicalValue.map { .blob(ClinicalDigest.of($0)) } ?? .null,
                                facts?.value.map { .real($0) } ?? .null, facts.map { .text($0.unit) } ?? .null,
                                facts?.min.map { .real($0) } ?? .null, facts?.max.map { .real($0) } ?? .null,
                                facts?.systolic.map { .real($0) } ?? .null,
                                facts?.diastolic.map { .real($0) } ?? .null,
                                facts.map { .integer($0.periodStart) } ?? .null,
                                facts.map { .integer($0.periodEnd) } ?? .null,
                            ])
                        rewritten += 1
                    }
                    return (rows.count, rewritten, rows.last?.key)
                }
                done.rewritten += rewritten
                done.kept += read - rewritten
                guard let next else { break }
                last = next
                progress(done)
                if read < batchSize { break }
            }
            done.left = Int(try count.query { $0.integer(0) }[0])
            return done
        }
    }

    static let oldShapeCountSQL = "SELECT count(*) FROM observation WHERE resource <> ''"

    /// The next batch of rows of the older shape after key `(?1, ?2, ?3)`, each with its resource as reads return it.
    static let oldShapeBatchSQL = """
        SELECT patient, metric, day, \(oldShapeResource), version_id, last_updated, status, clinical_value
        FROM observation WHERE resource <> '' AND (patient, metric, day) > (?1, ?2, ?3)
        ORDER BY patient, metric, day LIMIT ?4
        """

    /// Writes a row's document, digest and facts and empties its resource and clinical value text.
    static let rewriteSQL = """
        UPDATE observation SET resource = '', clinical_value = NULL, document = ?4, clinical_digest = ?5, value = ?6,
            unit = ?7, min = ?8, max = ?9, systolic = ?10, diastolic = ?11, period_start = ?12, period_end = ?13
        WHERE patient = ?1 AND metric = ?2 AND day = ?3 AND resource <> ''
        """
}

/// A row of ``SQLiteObservationStore/oldShapeBatchSQL``.
private struct OldShapeRow {
    var key: [SQLiteValue]
    var metric: String
    var resource: [UInt8]
    var versionId: Int64
    var lastUpdated: String
    var status: String?
    var clinicalValue: [UInt8]?

    init(_ row: SQLiteStatement) {
        metric = row.text(1)
        key = [.text(row.text(0)), .text(metric), .text(row.text(2))]
        resource = row.bytes(3) ?? []
        versionId = row.integer(4)
        lastUpdated = row.text(5)
        status = row.bytes(6).map { String(decoding: $0, as: UTF8.self) }
        clinicalValue = row.bytes(7)
    }
}
