import CCrypto

/// Deterministic FHIR resource ids: HMAC-SHA256 of the identity key under a secret, as 64 lowercase hex digits.
///
/// The id reveals nothing about the patient without the key, is stable across workers and replays, and fits the
/// FHIR id rule `[A-Za-z0-9\-\.]{1,64}`. Different keys give unrelated ids (rotate the key → new ids).
public struct ObservationID: Sendable {
    private let key: [UInt8]

    /// The shortest accepted secret, in bytes.
    public static let minimumKeyBytes = 16

    /// - Parameter key: the secret, at least ``minimumKeyBytes`` random bytes.
    /// - Throws: ``ObservationMapper/ConfigurationError`` when the key is too short.
    public init(key: [UInt8]) throws(ObservationMapper.ConfigurationError) {
        guard key.count >= Self.minimumKeyBytes else {
            throw ObservationMapper.ConfigurationError(
                field: "idKey", "must be at least \(Self.minimumKeyBytes) bytes (got \(key.count))")
        }
        self.key = key
    }

    /// The id of the Observation for `identity`.
    public func id(for identity: ObservationIdentity) -> String {
        let message = Array(identity.key.utf8)
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        key.withUnsafeBytes { keyBytes in
            message.withUnsafeBytes { messageBytes in
                digest.withUnsafeMutableBytes { out in
                    // HMAC returns NULL only on allocation failure or a bad digest; SHA-256 is built in.
                    let result = HMAC(
                        EVP_sha256(), keyBytes.baseAddress, Int32(keyBytes.count),
                        messageBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), messageBytes.count,
                        out.baseAddress?.assumingMemoryBound(to: UInt8.self), &length)
                    precondition(result != nil, "HMAC-SHA256 failed (libcrypto out of memory)")
                }
            }
        }
        let hex = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(Int(length) * 2)
        for b in digest.prefix(Int(length)) {
            out.append(hex[Int(b >> 4)])
            out.append(hex[Int(b & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
