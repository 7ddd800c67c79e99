import Essentials
import Hashing
import JSON

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

    /// A JWK's string members, as far as they are read here.
    private struct Member {
        var kty, kid, alg, use, crv, n, e, x, y: String?
        /// Whether it holds a private key member (`d` of RSA and EC, RSA's primes).
        var isPrivate: Bool

        init(_ object: [String: JSONValue], _ malformed: (String) -> CredentialFileError) throws(CredentialFileError) {
            func text(_ name: String) throws(CredentialFileError) -> String? {
                guard let value = object[name] else { return nil }
                guard let string = value.string else { throw malformed("\(name) is not a string") }
                return string
            }
            (kty, kid, alg, use, crv) = (
                try text("kty"), try text("kid"), try text("alg"), try text("use"), try text("crv")
            )
            (n, e, x, y) = (try text("n"), try text("e"), try text("x"), try text("y"))
            isPrivate = ["d", "p", "q"].contains { object[$0] != nil }
        }
    }

    /// - Throws: ``CredentialFileError`` (`malformed`) naming the key by its index (and `kid`, a public name).
    init(parsing bytes: [UInt8], path: String) throws(CredentialFileError) {
        let document: JSONValue
        do {
            document = try JSONValue.parse(bytes)
        } catch {
            let reason = error.kind == .duplicateMember ? "the member \(error.member) appears twice" : error.message
            throw CredentialFileError(.malformed, path: path, "is not JSON: \(reason)")
        }
        guard let members = document["keys"]?.array else {
            throw CredentialFileError(.malformed, path: path, "is not a JWKS: no keys array")
        }
        var skipped = 0
        for (index, value) in members.enumerated() {
            func malformed(_ message: String) -> CredentialFileError {
                let kid = value["kid"]?.string.map { " (kid \($0))" } ?? ""
                return CredentialFileError(.malformed, path: path, "keys[\(index)]\(kid): \(message)")
            }
            guard let object = value.object else { throw malformed("is not an object") }
            let member = try Member(object, malformed)
            guard !member.isPrivate else {
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
        let (first, second) =
            algorithm == .rs256
            ? (try component(member.n, "n"), try component(member.e, "e"))
            : (try component(member.x, "x"), try component(member.y, "y"))
        do throws(SignatureKeyError) {
            let verifier =
                algorithm == .rs256
                ? try SignatureVerifyingKey(rsaModulus: first, exponent: second)
                : try SignatureVerifyingKey(p256X: first, y: second)
            return Key(kid: member.kid, algorithm: algorithm, verifier: verifier)
        } catch {
            throw malformed(error.message)
        }
    }
}
