/// 64-bit FNV-1a: a fast, stable, non-cryptographic hash (the same on every build and machine), for spreading keys
/// over lanes or seeding generators. Never for secrets or integrity: use ``SHA256`` or ``HMACSHA256``.
package enum FNV1a {
    package static func hash(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return hash
    }
}
