import DocumentCompression

/// A store connection's document compressor and decompressor (zstd contexts: not thread-safe).
///
/// `@unchecked Sendable`: a store uses it only on its serial queue, next to the connection it belongs to.
package final class DocumentCodecs: @unchecked Sendable {
    package let compressor = DocumentCompressor()
    package let decompressor = DocumentDecompressor()

    package init() {}
}
