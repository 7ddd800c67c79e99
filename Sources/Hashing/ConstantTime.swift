import CCrypto

/// Comparisons whose time does not depend on where two secrets differ (libcrypto's `CRYPTO_memcmp`).
package enum ConstantTime {
    /// Whether `a` and `b` hold the same bytes; the time depends on their length only, never on their contents.
    package static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        let difference = a.withUnsafeBytes { x in
            b.withUnsafeBytes { y in CRYPTO_memcmp(x.baseAddress, y.baseAddress, a.count) }
        }
        return difference == 0
    }
}
