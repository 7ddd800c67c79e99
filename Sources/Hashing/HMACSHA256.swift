import CCrypto

/// HMAC-SHA256 with the key schedule done once (RFC 2104): the inner and outer hash states after absorbing
/// `key ⊕ ipad` / `key ⊕ opad` are kept, and each MAC copies them instead of re-keying. About twice as fast as
/// libcrypto's one-shot `HMAC()`, which fetches the algorithm and re-derives the pads on every call.
///
/// Owns two `EVP_MD_CTX` handles, freed in `deinit`. They are never mutated after `init` (each call copies them
/// into its own context), so concurrent use from several threads is safe: hence `@unchecked Sendable`.
package final class HMACSHA256: @unchecked Sendable {
    package static let blockSize = 64
    package static let digestSize = SHA256.digestSize

    private let inner: OpaquePointer
    private let outer: OpaquePointer

    /// - Parameter key: any length; keys longer than the block size are hashed first, as RFC 2104 requires.
    package init(key: [UInt8]) {
        var block = key.count > Self.blockSize ? SHA256.digest(key) : key
        block += [UInt8](repeating: 0, count: Self.blockSize - block.count)
        inner = Self.absorbedContext(block.map { $0 ^ 0x36 })
        outer = Self.absorbedContext(block.map { $0 ^ 0x5C })
    }

    deinit {
        EVP_MD_CTX_free(inner)
        EVP_MD_CTX_free(outer)
    }

    /// The 32-byte MAC of `message`.
    package func mac(_ message: UnsafeRawBufferPointer) -> [UInt8] {
        let ctx = EVP_MD_CTX_new()
        defer { EVP_MD_CTX_free(ctx) }
        var innerHash = [UInt8](repeating: 0, count: Self.digestSize)
        var out = [UInt8](repeating: 0, count: Self.digestSize)
        var ok = EVP_MD_CTX_copy_ex(ctx, inner) == 1 && EVP_DigestUpdate(ctx, message.baseAddress, message.count) == 1
        ok = ok && EVP_DigestFinal_ex(ctx, &innerHash, nil) == 1
        ok = ok && EVP_MD_CTX_copy_ex(ctx, outer) == 1 && EVP_DigestUpdate(ctx, innerHash, Self.digestSize) == 1
        ok = ok && EVP_DigestFinal_ex(ctx, &out, nil) == 1
        // These calls fail only when libcrypto cannot allocate memory; there is no meaningful recovery.
        precondition(ok && ctx != nil, "libcrypto SHA-256 failed (out of memory)")
        return out
    }

    private static func absorbedContext(_ pad: [UInt8]) -> OpaquePointer {
        let ctx = EVP_MD_CTX_new()
        let ok =
            ctx != nil && EVP_DigestInit_ex(ctx, EVP_sha256(), nil) == 1 && EVP_DigestUpdate(ctx, pad, pad.count) == 1
        precondition(ok, "libcrypto SHA-256 initialisation failed")
        return ctx!
    }
}
