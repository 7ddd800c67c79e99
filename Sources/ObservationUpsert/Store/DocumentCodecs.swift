import DocumentCompression

/// A store connection's document compressor and decompressor (zstd contexts: not thread-safe).
///
/// `@unchecked Sendable`: a store uses it only on its serial queue, next to the connection it belongs to.
final class DocumentCodecs: @unchecked Sendable {
    let compressor = DocumentCompressor()
    let decompressor = DocumentDecompressor()
}
