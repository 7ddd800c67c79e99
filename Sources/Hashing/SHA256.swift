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
