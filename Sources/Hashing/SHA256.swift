import CCrypto

/// SHA-256 through libcrypto (Foundation has no digests on Linux).
package enum SHA256 {
    /// The size of a digest in bytes.
    package static let digestSize = 32

    /// The 32-byte digest of `bytes`.
    package static func digest(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBytes { digest($0, prefix: digestSize) }
    }

    /// The first `prefix` bytes (at most ``digestSize``) of the digest of `bytes`: one allocation, the result. The
    /// low-level `SHA256_CTX` lives on the stack (`EVP_Digest` allocates a context per call).
    package static func digest(_ bytes: UnsafeRawBufferPointer, prefix: Int) -> [UInt8] {
        precondition((0...digestSize).contains(prefix), "SHA256.digest: prefix beyond the digest")
        return withUnsafeTemporaryAllocation(byteCount: digestSize, alignment: 1) { full in
            var context = SHA256_CTX()
            // SHA256_Init/Update/Final only fail on a null context; this one never is.
            _ = SHA256_Init(&context)
            _ = SHA256_Update(&context, bytes.baseAddress, bytes.count)
            _ = SHA256_Final(full.baseAddress!.assumingMemoryBound(to: UInt8.self), &context)
            return [UInt8](full.prefix(prefix))
        }
    }

    /// The lowercase hex digest of `bytes`.
    package static func hex(_ bytes: [UInt8]) -> String {
        Hex.lowercase(digest(bytes))
    }
}

extension SHA256 {
    /// A SHA-256 of bytes fed in pieces (a file written in chunks).
    package final class Stream {
        private let context: OpaquePointer

        package init() {
            // Fails only when libcrypto cannot allocate memory; there is no meaningful recovery.
            guard let context = EVP_MD_CTX_new(), EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
                preconditionFailure("libcrypto SHA-256 failed")
            }
            self.context = context
        }

        deinit { EVP_MD_CTX_free(context) }

        /// Adds `bytes` to the digest.
        package func update(_ bytes: UnsafeRawBufferPointer) {
            let ok = EVP_DigestUpdate(context, bytes.baseAddress, bytes.count) == 1
            precondition(ok, "libcrypto SHA-256 failed")
        }

        /// The lowercase hex digest of everything added; the stream must not be used afterwards.
        package func finishHex() -> String {
            var out = [UInt8](repeating: 0, count: digestSize)
            let ok = EVP_DigestFinal_ex(context, &out, nil) == 1
            precondition(ok, "libcrypto SHA-256 failed")
            return Hex.lowercase(out)
        }
    }
}
