import CCrypto

/// The components of one key for `EVP_PKEY_fromdata`, gathered with an `OSSL_PARAM_BLD` (the owned handle, freed in
/// `deinit`).
///
/// The builder keeps pointers to the names, strings, octets and BIGNUMs pushed until `OSSL_PARAM_BLD_to_param`
/// copies them, so this class holds its own copies of all of them until it is released.
final class KeyParameterBuilder {
    private let builder: OpaquePointer
    private var strings: [UnsafeMutablePointer<CChar>] = []
    private var octets: [UnsafeMutableRawBufferPointer] = []
    private var bignums: [OpaquePointer] = []

    init() throws(SignatureKeyError) {
        guard let builder = OSSL_PARAM_BLD_new() else { throw .libcrypto("cannot allocate an OSSL_PARAM_BLD") }
        self.builder = builder
    }

    deinit {
        OSSL_PARAM_BLD_free(builder)
        strings.forEach { $0.deallocate() }
        octets.forEach { $0.deallocate() }
        bignums.forEach { BN_free($0) }
    }

    /// Pushes `bytes`, an unsigned big-endian integer (a JWK's `n` or `e`), as the BIGNUM parameter `name`.
    func pushInteger(_ name: String, bigEndian bytes: [UInt8]) throws(SignatureKeyError) {
        guard let number = BN_bin2bn(bytes, Int32(bytes.count), nil) else {
            throw .libcrypto("cannot make a BIGNUM for \(name)")
        }
        bignums.append(number)
        guard OSSL_PARAM_BLD_push_BN(builder, copy(name), number) == 1 else {
            throw .libcrypto("cannot add the key parameter \(name)")
        }
    }

    /// Pushes the UTF-8 string parameter `name` (e.g. the EC group name).
    func pushString(_ name: String, _ value: String) throws(SignatureKeyError) {
        guard OSSL_PARAM_BLD_push_utf8_string(builder, copy(name), copy(value), 0) == 1 else {
            throw .libcrypto("cannot add the key parameter \(name)")
        }
    }

    /// Pushes the octet string parameter `name` (e.g. an EC public point).
    func pushOctets(_ name: String, _ bytes: [UInt8]) throws(SignatureKeyError) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
        buffer.copyBytes(from: bytes)
        octets.append(buffer)
        guard OSSL_PARAM_BLD_push_octet_string(builder, copy(name), buffer.baseAddress, bytes.count) == 1 else {
            throw .libcrypto("cannot add the key parameter \(name)")
        }
    }

    /// A public key of `type` (`"RSA"`, `"EC"`) made from the parameters pushed; the caller owns the `EVP_PKEY`.
    /// - Parameter refusal: the error's message when libcrypto refuses the components.
    func makePublicKey(type: String, refusal: String) throws(SignatureKeyError) -> OpaquePointer {
        guard let parameters = OSSL_PARAM_BLD_to_param(builder) else {
            throw .libcrypto("cannot build the \(type) key parameters")
        }
        defer { OSSL_PARAM_free(parameters) }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, type, nil) else {
            throw .libcrypto("libcrypto has no \(type) key management")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_fromdata_init(context) == 1,
            EVP_PKEY_fromdata(context, &key, dvp_evp_pkey_public_key_selection(), parameters) == 1, let key
        else { throw .libcrypto(refusal) }
        return key
    }

    private func copy(_ text: String) -> UnsafeMutablePointer<CChar> {
        let bytes = Array(text.utf8CString)
        let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
        pointer.initialize(from: bytes, count: bytes.count)
        strings.append(pointer)
        return pointer
    }
}
