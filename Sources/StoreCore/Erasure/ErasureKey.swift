import Essentials
import Hashing

/// The keyed hash that names a person in an erasure ledger: HMAC-SHA256 of the patient id under the worker's id key
/// (or a separate erasure key), so that no ledger, listing or log holds a patient id in clear, and a ledger entry
/// can be matched to an event or a stored row only by someone who holds the key.
///
/// Messages are domain-separated (`dvp-erasure/v1/` + id), so a pseudonym never equals an Observation id made from
/// the same key.
public struct ErasureKey: Sendable {
    private let hmac: HMACSHA256
    /// A short digest of the key itself (`HMAC(key, "dvp-erasure/v1/key-check")`, 16 hex digits), kept by the store
    /// with its ledger: a worker or `storectl` given another key is refused instead of silently missing entries.
    public let fingerprint: String

    /// The shortest accepted key, in bytes (as for the id key).
    public static let minimumKeyBytes = 16

    /// - Throws: ``StoreError`` (`usage`) when the key is shorter than ``minimumKeyBytes``.
    public init(key: [UInt8]) throws {
        guard key.count >= Self.minimumKeyBytes else {
            throw StoreError(.usage, "the erasure key must be at least \(Self.minimumKeyBytes) bytes (got \(key.count))")
        }
        let hmac = HMACSHA256(key: key)
        self.hmac = hmac
        let check = Array("dvp-erasure/v1/key-check".utf8).withUnsafeBytes { hmac.mac($0) }
        fingerprint = Hex.lowercase(Array(check.prefix(8)))
    }

    /// The pseudonym of `patient`.
    public func pseudonym(of patient: String) -> PatientPseudonym {
        var digest = [UInt8](repeating: 0, count: HMACSHA256.digestSize)
        digest.withUnsafeMutableBytes { out in
            hmac.mac(into: out) { message in
                "dvp-erasure/v1/".withUTF8Bytes { message.update(UnsafeRawBufferPointer($0)) }
                patient.withUTF8Bytes { message.update(UnsafeRawBufferPointer($0)) }
            }
        }
        return PatientPseudonym(bytes: digest)
    }
}

/// A person as the erasure ledger names them: the 32-byte ``ErasureKey`` hash of their patient id.
public struct PatientPseudonym: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The 32 digest bytes.
    public let bytes: [UInt8]

    /// A pseudonym from its digest bytes (a ledger row); nil unless there are 32.
    public init?(digest: [UInt8]) {
        guard digest.count == HMACSHA256.digestSize else { return nil }
        bytes = digest
    }

    /// A pseudonym from its 64 lowercase or uppercase hex digits (`storectl erasures --json`); nil for other text.
    public init?(hex: String) {
        guard hex.utf8.count == 2 * HMACSHA256.digestSize, let bytes = Hex.bytes(hex) else { return nil }
        self.bytes = bytes
    }

    init(bytes: [UInt8]) { self.bytes = bytes }

    /// The 64 lowercase hex digits.
    public var hex: String { Hex.lowercase(bytes) }

    /// The first 12 hex digits: enough to tell ledger entries apart in a listing or a log line.
    public var shortForm: String { String(hex.prefix(12)) }

    public var description: String { shortForm }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.bytes.lexicographicallyPrecedes(rhs.bytes) }
}
