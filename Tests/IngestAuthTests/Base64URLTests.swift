import Essentials
import Testing

@Suite struct Base64URLTests {
    /// RFC 4648 §10's vectors, in the URL-safe alphabet without padding.
    @Test(arguments: [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"),
        ("foobar", "Zm9vYmFy"),
    ])
    func rfc4648Vectors(plain: String, encoded: String) {
        #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
        #expect(Base64URL.decode(encoded) == Array(plain.utf8))
    }

    @Test func usesTheURLSafeAlphabet() {
        #expect(Base64URL.encode([0xFB, 0xFF, 0xBF]) == "-_-_")
        #expect(Base64URL.decode("-_-_") == [0xFB, 0xFF, 0xBF])
    }

    @Test(arguments: ["Zg==", "Zm9v+A", "Zm9v/A", "Zm 9v", "Z", "Zh", "Zm9"])
    func refusesWhatIsNotCanonicalUnpaddedBase64URL(text: String) {
        // Padding, the standard alphabet's + and /, whitespace, an impossible length, and non-zero unused bits
        // ("Zh" and "Zm9" would decode to the same bytes as "Zg" and "Zm8").
        #expect(Base64URL.decode(text) == nil)
    }
}
