import Essentials
import JSON

/// A JWT in the JWS compact serialization (RFC 7515 §7.1): `header.payload.signature`, each part unpadded
/// base64url. Parsing decodes all three parts and the header; the payload is decoded only once the signature
/// verified (``claims()``).
struct CompactJWS {
    /// Longer tokens are refused before any decoding (a JWT of this gateway's claims is well under 2 KiB).
    static let maximumLength = 16 << 10

    /// The JOSE header's members.
    let header: [String: JSONValue]
    /// The bytes the signature covers: the token up to its second dot (`header.payload`, as sent).
    let signingInput: [UInt8]
    /// The decoded signature.
    let signature: [UInt8]
    private let payload: [UInt8]

    /// Whether `token` is shaped like a compact JWS: exactly two dots. Anything else is an opaque API key.
    static func hasShape(_ token: String) -> Bool {
        token.utf8.count { $0 == UInt8(ascii: ".") } == 2
    }

    /// - Throws: ``AuthenticationFailure`` (`invalid`) naming the part that is not base64url or not a JSON object.
    init(_ token: String) throws(AuthenticationFailure) {
        let bytes = Array(token.utf8)
        guard bytes.count <= Self.maximumLength else {
            throw AuthenticationFailure(.invalid, "the JWT is longer than \(Self.maximumLength) bytes")
        }
        let dots = bytes.indices.filter { bytes[$0] == UInt8(ascii: ".") }
        guard dots.count == 2 else {
            throw AuthenticationFailure(.invalid, "the JWT does not have three dot-separated parts")
        }
        let ranges = [0..<dots[0], dots[0] + 1..<dots[1], dots[1] + 1..<bytes.count]
        var parts: [[UInt8]] = []
        for (range, name) in zip(ranges, ["header", "payload", "signature"]) {
            let part = bytes.withUnsafeBytes { Base64URL.decode(UnsafeRawBufferPointer(rebasing: $0[range])) }
            guard let part else { throw AuthenticationFailure(.invalid, "the JWT's \(name) is not unpadded base64url") }
            parts.append(part)
        }
        header = try Self.object(parts[0], "header")
        payload = parts[1]
        signature = parts[2]
        signingInput = Array(bytes[..<dots[1]])
    }

    /// The claims set (the payload's members).
    /// - Throws: ``AuthenticationFailure`` (`invalid`) when the payload is not a JSON object, or has a member twice.
    func claims() throws(AuthenticationFailure) -> [String: JSONValue] {
        try Self.object(payload, "payload")
    }

    private static func object(_ json: [UInt8], _ name: String) throws(AuthenticationFailure) -> [String: JSONValue] {
        let value: JSONValue
        do {
            value = try JSONValue.parse(json)
        } catch {
            // Not the member's name: it is the token's text.
            let reason = error.kind == .duplicateMember ? "has a member twice" : "is not a JSON object"
            throw AuthenticationFailure(.invalid, "the JWT's \(name) \(reason)")
        }
        guard let members = value.object else {
            throw AuthenticationFailure(.invalid, "the JWT's \(name) is not a JSON object")
        }
        return members
    }
}
