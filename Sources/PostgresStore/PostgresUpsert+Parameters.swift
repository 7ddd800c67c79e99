import DailyValueContract
import DocumentCompression
import ObservationMapping
import PostgresClient
import StoreCore

extension PostgresUpsert {
    /// `$4`…`$16` of ``upsertSQL`` for `winners`: the version, resource id, compressed document, mapped status,
    /// clinical digest and the typed facts (``ObservationFacts``; read from the resource text for a record built
    /// without them).
    static func parameters(_ winners: [ObservationRecord], compressor: DocumentCompressor) -> [PostgresParameter] {
        let facts = winners.map { $0.facts ?? StoredDocument.facts(ofResource: $0) }
        return [
            .bigintArray(winners.map(\.version)), .textArray(winners.map(\.resourceID)),
            .byteaArray(count: winners.count, reservingBytes: winners.count * 192) { index, bytes in
                StoredDocument.appendCompressed(winners[index], compressor, to: &bytes)
            },
            .textArray(winners.map { $0.status?.rawValue ?? "" }), .byteaArray(winners.map(\.clinicalDigest)),
            .doubleArray(facts.map { $0?.value }), .textArray(facts.map { $0?.unit ?? "" }),
            .doubleArray(facts.map { $0?.min }), .doubleArray(facts.map { $0?.max }),
            .doubleArray(facts.map { $0?.systolic }), .doubleArray(facts.map { $0?.diastolic }),
            .bigintArray(facts.map { $0?.periodStart }), .bigintArray(facts.map { $0?.periodEnd }),
        ]
    }
}
