import DocumentCompression
import ObservationMapping
import Synchronization

/// Makes records' stored documents ahead of the write (``ObservationRecord/storedDocument``), on the caller's
/// thread, in the format of the store that offers it (``StoreCapabilities/documentEncoder``): the worker compresses
/// a batch while it prepares it, beside the write of the batches before it, instead of on the store's serial
/// connection path. The bytes are those the store would make itself (the same compressor, level and dictionary).
///
/// Thread-safe: each call borrows a compressor (zstd contexts are not thread-safe) from a small pool.
public final class StoredDocumentEncoder: Sendable {
    /// Compressors not in use; one is made when all are busy, at most ``pooled`` are kept.
    private let idle = Mutex<[CompressorBox]>([])
    private static let pooled = 4

    /// `@unchecked Sendable`: a compressor is used by one borrower at a time, handed over through ``idle``'s lock.
    private final class CompressorBox: @unchecked Sendable {
        let compressor = DocumentCompressor()
    }

    public init() {}

    /// Sets the stored document of every value record (a retraction has none) of `items`, each found at `record`.
    package func encode<Items: MutableCollection>(
        _ items: inout Items, at record: WritableKeyPath<Items.Element, ObservationRecord>
    ) {
        guard items.contains(where: { $0[keyPath: record].retractionReason == nil }) else { return }
        let box = idle.withLock { $0.popLast() } ?? CompressorBox()
        for index in items.indices where items[index][keyPath: record].retractionReason == nil {
            let document = box.compressor.compress(StoredDocument.parts(of: items[index][keyPath: record]))
            items[index][keyPath: record].storedDocument = document
        }
        idle.withLock { if $0.count < Self.pooled { $0.append(box) } }
    }
}

extension StoredDocument {
    /// `record`'s compressed document: the one made ahead (``StoredDocumentEncoder``), else `compressor`'s.
    package static func compressed(_ record: ObservationRecord, _ compressor: DocumentCompressor) -> [UInt8] {
        record.storedDocument ?? compressor.compress(parts(of: record))
    }

    /// ``compressed(_:_:)`` appended to `bytes` (e.g. a statement parameter's wire form).
    package static func appendCompressed(
        _ record: ObservationRecord, _ compressor: DocumentCompressor, to bytes: inout [UInt8]
    ) {
        if let document = record.storedDocument {
            bytes += document
        } else {
            compressor.compress(parts(of: record), appendingTo: &bytes)
        }
    }
}
