import CCrypto

/// SHA-256 through libcrypto (Foundation has no digests on Linux).
package enum SHA256 {
    /// The size of a digest in bytes.
    package static let digestSize = 32

    /// The 32-byte digest of `bytes`.
    package static func digest(_ bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: digestSize)
        let ok = EVP_Digest(bytes, bytes.count, &out, nil, EVP_sha256(), nil) == 1
        // EVP_Digest fails only when libcrypto cannot allocate memory; there is no meaningful recovery.
        precondition(ok, "libcrypto SHA-256 failed")
        return out
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
