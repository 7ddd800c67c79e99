import CCrypto

/// Why a public key could not be made from its components: the rule it breaks, and libcrypto's reason when it
/// refused (never key material: the components are public, but they are long and say nothing a human can act on).
package struct SignatureKeyError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, e.g. `the RSA modulus has 1024 bits; at least 2048 are required`.
    package var message: String
    /// libcrypto's packed error code (`ERR_get_error`), when it refused.
    package var nativeCode: UInt?

    package init(_ message: String, nativeCode: UInt? = nil) {
        self.message = message
        self.nativeCode = nativeCode
    }

    /// An error for a libcrypto call that failed, with the first error on this thread's queue (which is cleared).
    static func libcrypto(_ message: String) -> SignatureKeyError {
        let code = ERR_get_error()
        defer { ERR_clear_error() }
        guard code != 0 else { return SignatureKeyError(message) }
        var text = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &text, text.count)
        let reason = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return SignatureKeyError("\(message) (libcrypto: \(reason))", nativeCode: code)
    }

    package var description: String { message }
}
