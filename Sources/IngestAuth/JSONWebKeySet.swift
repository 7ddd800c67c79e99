import Essentials
import Foundation
import Hashing

/// The signing keys of a JWKS file (RFC 7517 §5), parsed into libcrypto keys once per load.
///
/// Kept: `kty` `RSA` with `n` and `e` (at least 2048 bits) and `kty` `EC` with `crv` `P-256`, `x` and `y`, whose
/// `use` (when present) is `sig` and whose `alg` (when present) is `RS256` / `ES256` to match. Skipped, as RFC 7517
/// §5 asks: other key types, curves and algorithms, and encryption keys. Refused: a kept key with a missing or bad
/// component, private key members (`d`, `p`, …: the file must hold public keys only), two keys with one `kid`, and a
/// set with no key kept.
struct JSONWebKeySet: CredentialFileContent {
    struct Key: Sendable {
        var kid: String?
        var algorithm: JWTAlgorithm
        var verifier: SignatureVerifyingKey
    }

    private(set) var keys: [Key] = []

    var entryCount: Int { keys.count }

    /// A JWK's members, as far as they are read here.
    private struct Member: Decodable {
        var kty: String?
        var kid: String?
        var alg: String?
        var use: String?
        var crv: String?
        var n: String?
        var e: String?
        var x: String?
        var y: String?
        var d: String?
        var p: String?
        var q: String?
    }

    private struct Document: Decodable {
        var keys: [Member]
    }

    /// - Throws: ``CredentialFileError`` (`malformed`) naming the key by its index (and `kid`, a public name).
    init(parsing bytes: [UInt8], path: String) throws(CredentialFileError) {
        let document: Document
        do {
            document = try JSONDecoder().decode(Document.self, from: Data(bytes))
        } catch let error as DecodingError {
            throw CredentialFileError(.malformed, path: path, "is not a JWKS: \(Self.describe(error))")
        } catch {
            throw CredentialFileError(.malformed, path: path, "is not a JWKS")
        }
        var skipped = 0
        for (index, member) in document.keys.enumerated() {
            let name = "keys[\(index)]" + (member.kid.map { " (kid \($0))" } ?? "")
            func malformed(_ message: String) -> CredentialFileError {
                CredentialFileError(.malformed, path: path, "\(name): \(message)")
            }
            guard member.d == nil, member.p == nil, member.q == nil else {
                throw malformed("holds private key members; the JWKS file must hold public keys only")
            }
            guard let key = try Self.key(member, malformed) else {
                skipped += 1
                continue
            }
            if let kid = key.kid, keys.contains(where: { $0.kid == kid }) {
                throw malformed("another key has the same kid")
            }
            keys.append(key)
        }
        guard !keys.isEmpty else {
            throw CredentialFileError(
                .malformed, path: path,
                "has no RS256 or ES256 signing key (\(skipped) of another type, curve, algorithm or use skipped)")
        }
    }

    /// The key a token signed with `algorithm` and header `kid` must verify with.
    /// - Throws: ``AuthenticationFailure`` (`invalid`) for an unknown `kid`, a key of another type than the
    ///   token's `alg` (algorithm confusion), or no `kid` and not exactly one key for the algorithm.
    func key(for algorithm: JWTAlgorithm, kid: String?) throws(AuthenticationFailure) -> SignatureVerifyingKey {
        if let kid {
            guard let key = keys.first(where: { $0.kid == kid }) else {
                throw AuthenticationFailure(.invalid, "no key of the JWKS has the JWT's kid")
            }
            guard key.algorithm == algorithm else {
                throw AuthenticationFailure(
                    .invalid,
                    "the JWT's kid names a key for \(key.algorithm.rawValue) but its alg is \(algorithm.rawValue)")
            }
            return key.verifier
        }
        let candidates = keys.filter { $0.algorithm == algorithm }
        guard candidates.count == 1 else {
            throw AuthenticationFailure(
                .invalid,
                "the JWT has no kid and \(candidates.count) keys of the JWKS are for \(algorithm.rawValue)")
        }
        return candidates[0].verifier
    }

    // MARK: - Members

    /// The key `member` describes; nil for one skipped (not a kind this gateway verifies).
    private static func key(
        _ member: Member, _ malformed: (String) -> CredentialFileError
    ) throws(CredentialFileError) -> Key? {
        guard member.use == nil || member.use == "sig" else { return nil }
        let algorithm: JWTAlgorithm
        switch (member.kty, member.crv) {
        case ("RSA", _): algorithm = .rs256
        case ("EC", "P-256"): algorithm = .es256
        default: return nil
        }
        guard member.alg == nil || member.alg == algorithm.rawValue else { return nil }
        func component(_ value: String?, _ name: String) throws(CredentialFileError) -> [UInt8] {
            guard let value else { throw malformed("an \(member.kty ?? "") key without \(name)") }
            guard let bytes = Base64URL.decode(value), !bytes.isEmpty else {
                throw malformed("\(name) is not unpadded base64url")
            }
            return bytes
        }
        do {
            let verifier =
                switch algorithm {
                case .rs256:
                    try SignatureVerifyingKey(rsaModulus: component(member.n, "n"), exponent: component(member.e, "e"))
                case .es256: try SignatureVerifyingKey(p256X: component(member.x, "x"), y: component(member.y, "y"))
                }
            return Key(kid: member.kid, algorithm: algorithm, verifier: verifier)
        } catch let error as SignatureKeyError {
            throw malformed(error.message)
        } catch let error as CredentialFileError {
            throw error
        } catch {
            throw malformed("cannot be used")
        }
    }

    /// Where a JWKS breaks JSON or its shape: the member's path and the kind of problem, no values.
    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return keys.isEmpty ? "the document" : String(keys.drop { $0 == "." })
        }
        switch error {
        case .keyNotFound(let key, let context): return "\(path(context)) has no member \(key.stringValue)"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "\(path(context)) is not of the expected type"
        case .dataCorrupted(let context): return context.codingPath.isEmpty ? "not JSON" : "\(path(context)) is invalid"
        @unknown default: return "not a JWKS"
        }
    }
}
