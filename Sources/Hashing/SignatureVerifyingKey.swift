import CCrypto

/// A public key that checks SHA-256 signatures: RSA with PKCS #1 v1.5 padding (JOSE `RS256`) or ECDSA over P-256
/// (JOSE `ES256`), made from a JWK's components with OpenSSL 3's `EVP_PKEY_fromdata`.
///
/// Owns one `EVP_PKEY`, freed in `deinit`. `@unchecked Sendable`: the key is never changed after `init`, and
/// libcrypto lets one `EVP_PKEY` verify on many threads at once (each verification has its own `EVP_MD_CTX`).
package final class SignatureVerifyingKey: @unchecked Sendable {
    /// The key's algorithm.
    package enum Kind: Sendable, Equatable {
        /// RSA, checked as RSASSA-PKCS1-v1_5 with SHA-256.
        case rsa
        /// ECDSA on the NIST P-256 curve with SHA-256.
        case p256
    }

    /// The smallest RSA modulus accepted (NIST SP 800-131A; RFC 7518 §3.3 requires 2048 bits for RS256).
    package static let minimumRSABits = 2048

    private static let offCurve = "the point (x, y) is not on the P-256 curve"

    package let kind: Kind
    /// The modulus size (RSA) or the curve's size (256).
    package let bits: Int
    private let key: OpaquePointer

    /// An RSA public key from its big-endian modulus and public exponent (a JWK's decoded `n` and `e`).
    /// - Throws: ``SignatureKeyError`` when the modulus is shorter than ``minimumRSABits`` or libcrypto refuses the
    ///   key (an even modulus, an even or too small exponent).
    package convenience init(rsaModulus modulus: [UInt8], exponent: [UInt8]) throws(SignatureKeyError) {
        let builder = try KeyParameterBuilder()
        try builder.pushInteger(OSSL_PKEY_PARAM_RSA_N, bigEndian: modulus)
        try builder.pushInteger(OSSL_PKEY_PARAM_RSA_E, bigEndian: exponent)
        try self.init(
            owning: try builder.makePublicKey(type: "RSA", refusal: "the RSA public key is invalid"), kind: .rsa)
        guard bits >= Self.minimumRSABits else {
            throw SignatureKeyError("the RSA modulus has \(bits) bits; at least \(Self.minimumRSABits) are required")
        }
    }

    /// A P-256 public key from its affine coordinates (a JWK's decoded `x` and `y`, 32 big-endian bytes each).
    /// - Throws: ``SignatureKeyError`` when a coordinate is not 32 bytes or the point is not on the curve.
    package convenience init(p256X x: [UInt8], y: [UInt8]) throws(SignatureKeyError) {
        guard x.count == 32, y.count == 32 else {
            throw SignatureKeyError("a P-256 coordinate must be 32 bytes (x has \(x.count), y has \(y.count))")
        }
        let builder = try KeyParameterBuilder()
        try builder.pushString(OSSL_PKEY_PARAM_GROUP_NAME, "P-256")
        try builder.pushOctets(OSSL_PKEY_PARAM_PUB_KEY, [0x04] + x + y)  // SEC 1 uncompressed point
        try self.init(owning: try builder.makePublicKey(type: "EC", refusal: Self.offCurve), kind: .p256)
    }

    /// Takes ownership of `key` (freed even when the check throws) and runs libcrypto's public key check.
    private init(owning key: OpaquePointer, kind: Kind) throws(SignatureKeyError) {
        self.key = key
        self.kind = kind
        bits = Int(EVP_PKEY_get_bits(key))
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else {
            throw .libcrypto("cannot allocate a key check context")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_public_check(context) == 1 else {
            throw .libcrypto(kind == .rsa ? "the RSA public key is invalid" : Self.offCurve)
        }
    }

    deinit { EVP_PKEY_free(key) }

    /// Whether `signature` is this key's signature of `message`'s SHA-256 digest.
    ///
    /// - Parameter signature: RSA: the PKCS #1 v1.5 signature (as long as the modulus). P-256: JOSE's form, `r ‖ s`
    ///   as two 32-byte big-endian integers (RFC 7518 §3.4), converted here to the DER `ECDSA-Sig-Value` libcrypto
    ///   reads; a DER signature is refused.
    package func isValidSignature(_ signature: [UInt8], of message: UnsafeRawBufferPointer) -> Bool {
        // A refused signature leaves reasons on this thread's error queue; nothing reads them.
        defer { ERR_clear_error() }
        let encoded: [UInt8]
        switch kind {
        case .rsa: encoded = signature
        case .p256:
            guard let der = Self.derSignature(raw: signature) else { return false }
            encoded = der
        }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit_ex(context, nil, "SHA256", nil, nil, key, nil) == 1 else { return false }
        let tbs = message.baseAddress?.assumingMemoryBound(to: UInt8.self)
        return EVP_DigestVerify(context, encoded, encoded.count, tbs, message.count) == 1
    }

    /// The DER `ECDSA-Sig-Value` of a JOSE `r ‖ s` signature; nil unless it is 64 bytes.
    private static func derSignature(raw: [UInt8]) -> [UInt8]? {
        guard raw.count == 64, let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let halves = raw.withUnsafeBufferPointer { buffer in
            (BN_bin2bn(buffer.baseAddress, 32, nil), BN_bin2bn(buffer.baseAddress! + 32, 32, nil))
        }
        guard let r = halves.0, let s = halves.1, ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(halves.0)
            BN_free(halves.1)
            return nil
        }
        let length = i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else { return nil }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer in
            var out = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &out)
        }
        return written == length ? der : nil
    }
}
