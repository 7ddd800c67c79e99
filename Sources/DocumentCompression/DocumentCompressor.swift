import CZstd

/// Compresses a stored document, given as parts, into one opaque value: a format byte, then a zstd frame (level 1,
/// with ``DocumentDictionary/current``, its 4-byte magic left out) of the part table and the parts.
///
/// Not thread-safe: one per connection or serial queue. The dictionary is digested once, at init.
public final class DocumentCompressor {
    private let context: OpaquePointer
    private let dictionary: OpaquePointer
    private var scratch: [UInt8] = []
    private var frame: [UInt8] = []

    /// What a document compresses: the number of parts, the lengths of all but the last, then the parts (a training
    /// sample for a dictionary).
    public static func content(of parts: [ArraySlice<UInt8>]) -> [UInt8] {
        var content: [UInt8] = []
        appendContent(of: parts, to: &content)
        return content
    }

    private static func appendContent(of parts: [ArraySlice<UInt8>], to out: inout [UInt8]) {
        DocumentFormat.appendVarint(parts.count, to: &out)
        for part in parts.dropLast() { DocumentFormat.appendVarint(part.count, to: &out) }
        for part in parts { out += part }
    }

    /// - Parameter level: zstd's level; 1 is the fastest of the regular ones (measured: bench/compression.sh).
    public init(dictionary: DocumentDictionary = .current, level: Int32 = 1) {
        context = ZSTD_createCCtx()!
        self.dictionary = dictionary.bytes.withUnsafeBytes {
            ZSTD_createCDict($0.baseAddress, $0.count, level)!
        }
        ZSTD_CCtx_refCDict(context, self.dictionary)
        ZSTD_CCtx_setParameter(context, ZSTD_c_checksumFlag, 0)
        ZSTD_CCtx_setParameter(context, ZSTD_c_contentSizeFlag, 1)
        ZSTD_CCtx_setParameter(context, ZSTD_c_dictIDFlag, 1)
    }

    deinit {
        ZSTD_freeCCtx(context)
        ZSTD_freeCDict(dictionary)
    }

    /// The document of `parts` (read back with ``DocumentDecompressor/parts(of:)``).
    public func compress(_ parts: [ArraySlice<UInt8>]) -> [UInt8] {
        var document: [UInt8] = []
        compress(parts, appendingTo: &document)
        return document
    }

    /// Appends the document of `parts` to `out` (e.g. straight into a statement parameter's wire form).
    public func compress(_ parts: [ArraySlice<UInt8>], appendingTo out: inout [UInt8]) {
        scratch.removeAll(keepingCapacity: true)
        Self.appendContent(of: parts, to: &scratch)
        let bound = ZSTD_compressBound(scratch.count)
        if frame.count < bound { frame = [UInt8](repeating: 0, count: bound) }
        let size = scratch.withUnsafeBytes { source in
            frame.withUnsafeMutableBytes {
                ZSTD_compress2(context, $0.baseAddress, bound, source.baseAddress, source.count)
            }
        }
        // Cannot fail with a bound-sized output and a valid dictionary: a failure is a bug, not bad input.
        precondition(ZSTD_isError(size) == 0, "zstd: \(String(cString: ZSTD_getErrorName(size)))")
        out.reserveCapacity(out.count + size - DocumentFormat.magic.count + 1)
        out.append(DocumentFormat.zstdWithDictionary)
        out += frame[DocumentFormat.magic.count..<size]
    }
}
