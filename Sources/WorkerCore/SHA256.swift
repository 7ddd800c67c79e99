import CCrypto

/// SHA-256 through libcrypto (Foundation has no digests on Linux).
enum SHA256 {
    /// The lowercase hex digest of `bytes`.
    static func hex(_ bytes: [UInt8]) -> String {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        bytes.withUnsafeBufferPointer { input in
            _ = CCrypto.SHA256(input.baseAddress, input.count, &digest)
        }
        return digest.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
            .joined()
    }
}
