import CCrypto

/// HMAC-SHA256 with the key schedule done once (RFC 2104): the inner and outer SHA-256 states after absorbing
/// `key ⊕ ipad` / `key ⊕ opad` are kept, and each MAC starts from copies of them. The states are plain
/// `SHA256_CTX` values (libcrypto's low-level SHA-256), so a MAC allocates nothing; the EVP API would allocate a
/// context and duplicate the provider's state twice per MAC (every observation id is one MAC).
///
/// Immutable after `init`: each call copies the states onto its own stack, so concurrent use is safe.
package final class HMACSHA256: Sendable {
    package static let blockSize = 64
    package static let digestSize = SHA256.digestSize

    private let inner: SHA256_CTX
    private let outer: SHA256_CTX

    /// - Parameter key: any length; keys longer than the block size are hashed first, as RFC 2104 requires.
    package init(key: [UInt8]) {
        var block = key.count > Self.blockSize ? SHA256.digest(key) : key
        block += [UInt8](repeating: 0, count: Self.blockSize - block.count)
        inner = Self.absorbed(block.map { $0 ^ 0x36 })
        outer = Self.absorbed(block.map { $0 ^ 0x5C })
    }

    /// The 32-byte MAC of `message`.
    package func mac(_ message: UnsafeRawBufferPointer) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: Self.digestSize) { buffer, count in
            mac(message, into: UnsafeMutableRawBufferPointer(buffer))
            count = Self.digestSize
        }
    }

    /// Writes the 32-byte MAC of `message` to the start of `digest` (at least ``digestSize`` bytes).
    package func mac(_ message: UnsafeRawBufferPointer, into digest: UnsafeMutableRawBufferPointer) {
        mac(into: digest) { $0.update(message) }
    }

    /// The message of a MAC being computed, fed in pieces (no buffer to join them in).
    package struct Message {
        fileprivate var context: SHA256_CTX

        /// Appends `bytes` to the message.
        package mutating func update(_ bytes: UnsafeRawBufferPointer) {
            // SHA256_Update/Final only fail on a null context; this one never is.
            SHA256_Update(&context, bytes.baseAddress, bytes.count)
        }
    }

    /// Writes the 32-byte MAC of the message `write` feeds to the start of `digest` (at least ``digestSize`` bytes).
    package func mac(into digest: UnsafeMutableRawBufferPointer, _ write: (inout Message) -> Void) {
        precondition(digest.count >= Self.digestSize, "HMAC-SHA256 needs \(Self.digestSize) bytes of output")
        let out = digest.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var message = Message(context: inner)
        write(&message)
        SHA256_Final(out, &message.context)
        var ctx = outer
        SHA256_Update(&ctx, out, Self.digestSize)
        SHA256_Final(out, &ctx)
    }

    private static func absorbed(_ pad: [UInt8]) -> SHA256_CTX {
        var ctx = SHA256_CTX()
        let ok = SHA256_Init(&ctx) == 1 && SHA256_Update(&ctx, pad, pad.count) == 1
        precondition(ok, "libcrypto SHA-256 initialisation failed")
        return ctx
    }
}
