import CZstd

/// Reads documents of ``DocumentCompressor`` back into their parts, with whichever ``DocumentDictionary/known``
/// dictionary the frame names.
///
/// Not thread-safe: one per connection or serial queue.
public final class DocumentDecompressor {
    private let context: OpaquePointer
    private let dictionaries: [UInt32: OpaquePointer]
    private var frame: [UInt8] = []

    public init(dictionaries: [DocumentDictionary] = DocumentDictionary.known) {
        context = ZSTD_createDCtx()!
        var digested: [UInt32: OpaquePointer] = [:]
        for dictionary in dictionaries {
            digested[dictionary.id] = dictionary.bytes.withUnsafeBytes { ZSTD_createDDict($0.baseAddress, $0.count)! }
        }
        self.dictionaries = digested
    }

    deinit {
        ZSTD_freeDCtx(context)
        for dictionary in dictionaries.values { ZSTD_freeDDict(dictionary) }
    }

    /// The content of `document` and the ranges of its parts in it.
    /// - Throws: ``DocumentError`` for an unknown format or dictionary, a corrupt frame or a part table that does
    ///   not add up.
    public func parts(of document: some Collection<UInt8>) throws(DocumentError) -> (
        bytes: [UInt8], ranges: [Range<Int>]
    ) {
        guard let format = document.first else { throw DocumentError("empty") }
        guard format == DocumentFormat.zstdWithDictionary else { throw DocumentError("unknown format \(format)") }
        frame.removeAll(keepingCapacity: true)
        frame += DocumentFormat.magic
        frame += document.dropFirst()
        let content = try decompressFrame()
        var offset = 0
        guard let count = DocumentFormat.readVarint(content, at: &offset), (1...DocumentFormat.maxParts).contains(count)
        else { throw DocumentError("corrupt part table") }
        var lengths: [Int] = []
        for _ in 0..<count - 1 {
            guard let length = DocumentFormat.readVarint(content, at: &offset) else {
                throw DocumentError("truncated part table")
            }
            lengths.append(length)
        }
        var ranges: [Range<Int>] = []
        var start = offset
        for length in lengths {
            guard length <= content.count - start else { throw DocumentError("a part runs past the content") }
            ranges.append(start..<start + length)
            start += length
        }
        ranges.append(start..<content.count)
        return (content, ranges)
    }

    private func decompressFrame() throws(DocumentError) -> [UInt8] {
        let (size, dictionaryID) = frame.withUnsafeBytes {
            (ZSTD_getFrameContentSize($0.baseAddress, $0.count), ZSTD_getDictID_fromFrame($0.baseAddress, $0.count))
        }
        // ZSTD_CONTENTSIZE_UNKNOWN and _ERROR are the two highest values; this build always writes the size.
        guard size < UInt64(DocumentFormat.maxContentBytes) else {
            throw DocumentError("corrupt frame header or content over \(DocumentFormat.maxContentBytes) bytes")
        }
        guard let dictionary = dictionaries[dictionaryID] else {
            throw DocumentError("compressed with dictionary \(dictionaryID), which this build does not have")
        }
        var failure: Int?
        let content = [UInt8](unsafeUninitializedCapacity: max(Int(size), 1)) { buffer, initialized in
            let written = frame.withUnsafeBytes {
                ZSTD_decompress_usingDDict(
                    context, buffer.baseAddress, Int(size), $0.baseAddress, $0.count, dictionary)
            }
            if ZSTD_isError(written) != 0 || written != Int(size) {
                failure = written
                initialized = 0
            } else {
                initialized = written
            }
        }
        if let failure {
            throw DocumentError(
                ZSTD_isError(failure) != 0
                    ? "corrupt frame: \(String(cString: ZSTD_getErrorName(failure)))"
                    : "content shorter than its header says")
        }
        return content
    }
}
