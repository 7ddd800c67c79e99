import CZlib

/// Inflates a gzip (RFC 1952) body in memory, never past a limit: the only code that calls zlib.
///
/// Concatenated members (what `cat a.gz b.gz` makes) are one stream, as `gunzip` reads them. Inflating stops as soon
/// as the output would pass `limit`, so a small body that inflates to gigabytes costs at most `limit` bytes and the
/// time to produce them.
public enum GzipInflater {
    /// The inflated bytes of `compressed`.
    /// - Throws: ``GzipError``: `tooLarge` when they would pass `limit` bytes, `malformed` for anything that is not a
    ///   complete gzip stream (zlib's reason in the message).
    public static func inflate(_ compressed: [UInt8], limit: Int) throws(GzipError) -> [UInt8] {
        // `inspect` never stops it, so there is always a result.
        try inflate(compressed, limit: limit) { _ in true }!
    }

    /// The inflated bytes of `compressed`, each piece shown to `inspect` as soon as it is made (before the next is):
    /// nil as soon as `inspect` returns false, inflating no further (a body refused for what it holds is never
    /// inflated whole).
    /// - Throws: ``GzipError`` as ``inflate(_:limit:)``.
    public static func inflate(
        _ compressed: [UInt8], limit: Int, inspect: (UnsafeBufferPointer<UInt8>) -> Bool
    ) throws(GzipError) -> [UInt8]? {
        var stream = z_stream()
        // 16 + 15: the gzip wrapper only (a raw or zlib stream is refused), the largest window.
        guard czlib_inflate_init2(&stream, 16 + MAX_WBITS) == Z_OK else {
            throw GzipError(.malformed, "zlib could not start inflating")
        }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        output.reserveCapacity(min(limit, max(compressed.count * 4, 4096)))
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var stopped = false
        let result: GzipError? = compressed.withUnsafeBufferPointer { input in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.avail_in = UInt32(input.count)
            return chunk.withUnsafeMutableBufferPointer { buffer in
                while true {
                    stream.next_out = buffer.baseAddress
                    stream.avail_out = UInt32(buffer.count)
                    let status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    let produced = buffer.count - Int(stream.avail_out)
                    guard output.count + produced <= limit else {
                        return GzipError(.tooLarge, "the body inflates to more than \(limit) bytes")
                    }
                    guard inspect(UnsafeBufferPointer(rebasing: buffer[0..<produced])) else {
                        stopped = true
                        return nil
                    }
                    output.append(contentsOf: buffer[0..<produced])
                    switch status {
                    case Z_OK:
                        continue
                    case Z_STREAM_END:
                        guard stream.avail_in > 0 else { return nil }
                        // Another member follows, or trailing data that is not one (refused by the next call).
                        guard inflateReset(&stream) == Z_OK else { return GzipError(.malformed, "zlib reset failed") }
                    case Z_BUF_ERROR where stream.avail_in == 0:
                        return GzipError(.malformed, "the gzip stream is truncated")
                    default:
                        return GzipError(.malformed, Self.reason(stream, status))
                    }
                }
            }
        }
        if let result { throw result }
        return stopped ? nil : output
    }

    /// zlib's message for a failed `inflate`, or the status name.
    private static func reason(_ stream: z_stream, _ status: Int32) -> String {
        if let message = stream.msg { return String(cString: message) }
        switch status {
        case Z_DATA_ERROR: return "not gzip data, or corrupt"
        case Z_MEM_ERROR: return "out of memory"
        default: return "zlib status \(status)"
        }
    }
}
