import DailyValueContract
import Essentials
import Hashing

/// Deterministic FHIR resource ids: HMAC-SHA256 of the identity key under a secret, as 64 lowercase hex digits.
///
/// The id reveals nothing about the patient without the key, is stable across workers and replays, and fits the
/// FHIR id rule `[A-Za-z0-9\-\.]{1,64}`. Different keys give unrelated ids (rotate the key → new ids).
public struct ObservationID: Sendable {
    private let hmac: HMACSHA256

    /// The shortest accepted secret, in bytes.
    public static let minimumKeyBytes = 16

    /// - Parameter key: the secret, at least ``minimumKeyBytes`` random bytes.
    /// - Throws: ``ObservationMapper/ConfigurationError`` when the key is too short.
    public init(key: [UInt8]) throws(ObservationMapper.ConfigurationError) {
        guard key.count >= Self.minimumKeyBytes else {
            throw ObservationMapper.ConfigurationError(
                field: "idKey", "must be at least \(Self.minimumKeyBytes) bytes (got \(key.count))")
        }
        self.hmac = HMACSHA256(key: key)
    }

    /// The id of the Observation for `identity`: the MAC of its ``ObservationIdentity/key``
    /// (`patient/metric/day`), fed in pieces; the digest stays on the stack, and the only allocation is the id.
    public func id(for identity: ObservationIdentity) -> String {
        withUnsafeTemporaryAllocation(byteCount: HMACSHA256.digestSize, alignment: 1) { digest in
            hmac.mac(into: digest) { message in
                func update(_ text: String) { text.withUTF8Bytes { message.update(UnsafeRawBufferPointer($0)) } }
                update(identity.patient)
                update("/")
                update(identity.metric)
                update("/")
                update(identity.day)
            }
            return Hex.lowercase(UnsafeRawBufferPointer(digest))
        }
    }
}
