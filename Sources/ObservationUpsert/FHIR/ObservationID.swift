import DailyValueContract
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

    /// The id of the Observation for `identity`.
    public func id(for identity: ObservationIdentity) -> String {
        var message = identity.key
        let digest = message.withUTF8 { hmac.mac(UnsafeRawBufferPointer($0)) }
        return Hex.lowercase(digest)
    }
}
