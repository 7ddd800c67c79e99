import DocumentCompression
import Essentials
import ObservationMapping
import PostgresClient
import StoreCore

extension PostgresObservationStore: DocumentMigrating {
    /// Batch by batch in key order, each batch one short transaction: it locks up to `batchSize` rows of schema 3
    /// (`resource` set) with `SKIP LOCKED`, rewrites each resource here as a document and facts (NULL columns for a
    /// resource that states none, such as a row older than the lifecycle columns)
    /// (``StoredDocument/fromSchemaThree(resource:metric:hasStatus:)``) and writes them with the resource cleared. A
    /// worker waits for one batch at most; `version`, `version_id`, `last_updated` and `status` stay as they are.
    public func migrateDocuments(batchSize: Int, progress: @escaping @Sendable (DocumentMigrationProgress) -> Void)
        async throws -> DocumentMigrationProgress
    {
        let codecs = codecs
        return try await withConnection { connection in
            let total = try connection.execute(Self.oldShapeCountSQL).integer(0, 0)
            var done = DocumentMigrationProgress(total: Int(total))
            var last = ["", "", ""]
            while true {
                let (locked, rewritten, next) = try connection.transaction {
                    // The table lock its UPDATE needs, before any row lock: a batch with a retraction takes SHARE
                    // ROW EXCLUSIVE first and then row locks, so taking it only at the UPDATE, while holding the
                    // batch's rows, could deadlock with such a batch (PostgresRetraction).
                    _ = try connection.execute(Self.tableLockSQL)
                    let rows = try connection.execute(Self.oldShapeBatchSQL, last + [String(batchSize)])
                    var rewrite = MigratedRows()
                    for row in 0..<rows.rowCount {
                        let key = [rows.text(row, 0), rows.text(row, 1), rows.text(row, 2)]
                        let shaped = try? StoredDocument.fromSchemaThree(
                            resource: rows.text(row, 3), metric: key[1], hasStatus: rows.text(row, 4) == "t")
                        guard let shaped else { continue }
                        rewrite.append(
                            key, codecs.compressor.compress(shaped.parts.map { shaped.content[$0] }), shaped.facts)
                    }
                    if !rewrite.keys.isEmpty {
                        _ = try connection.executePrepared("dvp_migrate_4", Self.rewriteSQL, rewrite.parameters)
                    }
                    let next = rows.rowCount == 0 ? nil : (0..<3).map { rows.text(rows.rowCount - 1, $0) }
                    return (rows.rowCount, rewrite.keys.count, next)
                }
                done.rewritten += rewritten
                done.kept += locked - rewritten
                guard let next else { break }
                last = next
                progress(done)
                if locked < batchSize { break }
            }
            done.left = Int(try connection.execute(Self.oldShapeCountSQL).integer(0, 0))
            return done
        }
    }

    static let oldShapeCountSQL = "SELECT count(*) FROM observation WHERE resource IS NOT NULL"

    /// The lock an `UPDATE` of the table takes anyway; other writers' upserts share it.
    static let tableLockSQL = "LOCK TABLE observation IN ROW EXCLUSIVE MODE"

    /// The next batch of schema-3 rows after key `($1, $2, $3)`, locked; a row a writer holds is skipped.
    static let oldShapeBatchSQL = """
        SELECT patient, metric, day, resource::text, status IS NOT NULL FROM observation
        WHERE resource IS NOT NULL AND (patient, metric, day) > ($1, $2, $3)
        ORDER BY patient, metric, day LIMIT $4::integer
        FOR UPDATE SKIP LOCKED
        """

    /// Writes the batch's documents and facts, clears the resource and the clinical value text (its digest kept).
    static let rewriteSQL = """
        UPDATE observation AS o SET document = u.document, resource = NULL, clinical_value = NULL,
            clinical_digest = \(PostgresUpsert.storedDigest("o")), value = u.value, unit = nullif(u.unit, ''),
            min = u.min, max = u.max, systolic = u.systolic, diastolic = u.diastolic,
            period_start = to_timestamp(u.period_start), period_end = to_timestamp(u.period_end)
        FROM unnest($1::text[], $2::text[], $3::text[], $4::bytea[], $5::float8[], $6::text[], $7::float8[],
                $8::float8[], $9::float8[], $10::float8[], $11::bigint[], $12::bigint[])
            AS u (patient, metric, day, document, value, unit, min, max, systolic, diastolic, period_start, period_end)
        WHERE (o.patient, o.metric, o.day) = (u.patient, u.metric, u.day) AND o.resource IS NOT NULL
        """
}

/// The rows of one migration batch, as the arrays of ``PostgresObservationStore/rewriteSQL``.
private struct MigratedRows {
    var keys: [[String]] = []
    var documents: [[UInt8]] = []
    var facts: [ObservationFacts?] = []

    mutating func append(_ key: [String], _ document: [UInt8], _ fact: ObservationFacts?) {
        keys.append(key)
        documents.append(document)
        facts.append(fact)
    }

    var parameters: [PostgresParameter] {
        [
            .textArray(keys.map { $0[0] }), .textArray(keys.map { $0[1] }), .textArray(keys.map { $0[2] }),
            .byteaArray(documents), .doubleArray(facts.map { $0?.value }), .textArray(facts.map { $0?.unit ?? "" }),
            .doubleArray(facts.map { $0?.min }), .doubleArray(facts.map { $0?.max }),
            .doubleArray(facts.map { $0?.systolic }), .doubleArray(facts.map { $0?.diastolic }),
            .bigintArray(facts.map { $0?.periodStart }), .bigintArray(facts.map { $0?.periodEnd }),
        ]
    }
}
